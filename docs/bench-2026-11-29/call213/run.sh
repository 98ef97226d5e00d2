#!/bin/bash
bash docs/bench-2026-11-29/next43/run.sh convnext  # call 213, 2026-11-29, device tool, carry build-dev-bin
