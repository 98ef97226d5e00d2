#!/bin/bash
# call 228: cap.py on ConvNeXt's and LYNXNet2's tuned builds (call 227's c0, l0)
export PYTHONUNBUFFERED=1
D=docs/bench-2026-11-30/call228
timeout 200 python3 $D/cap.py build-dev-bin/var/c0 2>&1 | grep -v Warning
timeout 200 python3 $D/cap.py build-dev-bin/var/l0 2>&1 | grep -v Warning
echo "done at ${SECONDS}s"
