#!/bin/bash
# device call K: sched=pp checked at many shapes, then tuned beside sync/ws on the short-K GEMMs
export PYTHONUNBUFFERED=1 KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
nvidia-smi --query-gpu=name --format=csv,noheader
cp .devdb/tune.sqlite /tmp/tune.sqlite
W="--where path=wgmma --where sched=pp"
{
for dt in f16 bf16; do
  $K check examples/wavenet_layer.pat --arch sm_90 --configs 4 -q --dim B=3 --dim C=40 --dim H=16 --dim T=192 --dim DIL=2 --dtype DT=$dt $W
  $K check examples/wavenet_layer.pat --arch sm_90 --configs 4 -q --dim B=2 --dim C=64 --dim H=16 --dim T=100 --dtype DT=$dt $W --kernel k5_gated_tanh_residual
  $K check examples/wavenet_layer.pat --arch sm_90 --configs 4 -q --dim B=5 --dim C=64 --dim H=16 --dim T=128 --dtype DT=$dt $W
  $K check tools/bench/ln_gemm_gelu.pat --arch sm_90 --configs 4 -q --dim M=300 --dim K=256 --dim N=328 --dtype DT=$dt $W --unfuse all --kernel k1_gemm_gelu
  $K check tools/bench/ln_gemm_gelu.pat --arch sm_90 --configs 4 -q --dim M=4000 --dim K=192 --dim N=520 --dtype DT=$dt $W --unfuse all --kernel k1_gemm_gelu
  $K check examples/lynxnet2_block.pat --arch sm_90 --configs 4 -q --dim B=2 --dim T=100 --dim C=72 --dtype DT=$dt $W
  $K check examples/lynxnet2_block.pat --arch sm_90 --configs 4 -q --dim B=3 --dim T=256 --dim C=64 --dtype DT=$dt $W
  $K check examples/convnext_block.pat --arch sm_90 --configs 4 -q --dim B=3 --dim C=40 --dim F=96 --dim T=37 --dtype DT=$dt $W --kernel k3_linear_scale_residual
  $K check examples/convnext_block.pat --arch sm_90 --configs 4 -q --dim B=4 --dim C=64 --dim F=128 --dim T=136 --dtype DT=$dt $W --unfuse all
  $K check examples/encoder_layer.pat --arch sm_90 --configs 3 -q --dim B=3 --dim L=72 --dim C=96 --dim HD=48 --dim F=128 --dtype DT=$dt $W
done
} 2>&1 | tee $OUT/check.txt | grep -v "^ok" | grep -v "passes its constraints" | grep -v " 0 wrong results" | tail -20
grep -c " 0 wrong results, 0 over" $OUT/check.txt
T="--arch sm_90 --db /tmp/tune.sqlite --where path=wgmma --budget ${1:-8} --time ${2:-70}"
{
$K tune examples/wavenet_layer.pat $T --kernel k4_conv1x1_residual
$K tune tools/bench/ln_gemm_gelu.pat $T --unfuse all --kernel k1_gemm_gelu
$K tune examples/wavenet_layer.pat $T --kernel k5_gated_tanh_residual
$K tune examples/lynxnet2_block.pat $T --kernel k6_linear_residual
$K tune examples/lynxnet2_block.pat $T --kernel k4_gemm_glu
} 2>&1 | grep -E "^k[0-9]|kernels in" | tee $OUT/tune.txt
cp /tmp/tune.sqlite $OUT/
python3 - /tmp/tune.sqlite > $OUT/designs.txt <<'PY'
import sqlite3, sys, re
db = sqlite3.connect(sys.argv[1])
rows = db.execute("""select k.op, k.shape, t.config, t.median_ms, t.status, t.template_hash, t.created
  from trials t join kernels k on k.id = t.kernel_id where k.arch = 'sm_90' order by t.id""").fetchall()
last = {}
for op, shape, cfg, ms, st, th, cr in rows:
    last[(op, shape)] = th
best = {}
for op, shape, cfg, ms, st, th, cr in rows:
    if st != 'ok' or ms is None: continue
    m = re.search(r"sched=(\w+)", cfg); p = re.search(r"path=(\w+)", cfg)
    key = (op, shape, p.group(1) if p else '?', m.group(1) if m else '?', 'new' if th == last[(op, shape)] else 'old')
    if key not in best or ms < best[key][0]: best[key] = (ms, cfg)
for k in sorted(best): print(k, "%.4f" % best[k][0], best[k][1])
PY
grep -E "pp|gemm_glu|gemm_gelu|residual" $OUT/designs.txt | grep wgmma | tail -40
