#!/bin/bash
# call 204 (session 41): the LYNXNet2 block by bench.py with pattern ln_dwconv in
# patterns/ (call 203's templates): its tune now also tunes the fused LayerNorm + conv
# and times the model both ways (the pattern is optional); fp16 at the default dims
# and fp32 at B = 1, T = 861 (the fused kernel's tile path there).  tune_s in the JSON
# says what the extra plan costs the tune.
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
timeout 560 python3 tools/bench/bench.py measure --kgen build-dev-bin/kgen --out $OUT/a --db /tmp/t.sqlite \
  --workloads lynxnet2_block_default,lynxnet2_block_B_1 --budget 6 --tune-timeout 300 --no-max-autotune 2>&1 | tail -30
build-dev-bin/kgen cache list --db /tmp/t.sqlite > $OUT/list.txt 2>&1
grep -i "ln_dwconv\|conv1d\|layernorm" $OUT/list.txt
grep -h '"tune_s"\|"plan"\|unfused' $OUT/a/*.json 2>/dev/null | head
echo "done at ${SECONDS}s"
