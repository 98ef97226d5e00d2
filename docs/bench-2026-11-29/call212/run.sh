#!/bin/bash
bash docs/bench-2026-11-29/next43/run.sh lynxnet2  # call 212, 2026-11-29, device tool, carry build-dev-bin
