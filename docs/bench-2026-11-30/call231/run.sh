#!/bin/bash
# call 231: energy.py over call 227's tuned builds of ConvNeXt and LYNXNet2
# (c0, l0): each kernel alone, idle and loaded, its joules a call, beside
# cuBLAS's GEMMs of the blocks' shapes and a 100 MB copy.
export PYTHONUNBUFFERED=1
# (it ran docs/bench-2026-11-30/call231/energy.py as of 4d2e197, since moved to
# tools/bench/energy.py, which takes the cuBLAS shapes as --cublas:)
timeout 300 python3 tools/bench/energy.py build-dev-bin/var/c0 build-dev-bin/var/l0 \
  --cublas 49152x512x2048,49152x2048x512,49152x1024x2048,49152x1024x1024 2>&1 | grep -v -i warn
echo "done at ${SECONDS}s"
