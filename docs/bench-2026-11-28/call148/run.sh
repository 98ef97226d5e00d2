#!/bin/bash
# call 148 (2026-11-28): how long would the dilated conv take with the condition's 1x1 conv
# folded in as extra K (K = 3 * 512 + 384 = 1920)?  conv1920.pat has that K (C = 640, 3 taps),
# x channel-last as in the layer; WaveNet's own dilated conv (K = 1536) tuned beside it, each
# over the same wgmma TMA configs.
export PYTHONUNBUFFERED=1 KGEN_PATTERNS=$PWD/patterns KGEN_TEMPLATES=$PWD/templates
K=build-dev-bin/kgen
D=docs/bench-2026-11-28/call148
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
W="--arch sm_90 --where path=wgmma --where load=tma --budget 16 --strategy anneal"
timeout 250 $K tune $D/conv1920.pat --kernel k7_conv1d $W --db /tmp/c.sqlite > $OUT/conv1920.txt 2>&1; echo "rc=$?"
timeout 250 $K tune examples/wavenet_layer.pat --kernel k8_conv1d $W --db /tmp/c.sqlite > $OUT/conv1536.txt 2>&1; echo "rc=$?"
grep -E "k[78]_conv1d " $OUT/conv1920.txt $OUT/conv1536.txt | cut -c1-220
$K cache list --db /tmp/c.sqlite 2>&1 | cut -c1-220 > $OUT/winners.txt
cat $OUT/winners.txt
