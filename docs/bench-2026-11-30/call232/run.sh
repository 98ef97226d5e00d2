#!/bin/bash
# call 232: tools/bench/energy.py as landed (moved from call 231's directory,
# argparse, every dtype), re-run on ConvNeXt's tuned build (call 227's c0).
timeout 200 python3 tools/bench/energy.py build-dev-bin/var/c0 --cublas 49152x512x2048 2>&1 | grep -v -i warn
