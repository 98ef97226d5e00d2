#!/bin/bash
# device call M: rownorm's tile path on ConvNeXt's LayerNorm over the transposed dwconv output
export PYTHONUNBUFFERED=1 KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
nvidia-smi --query-gpu=name --format=csv,noheader
cp .devdb/tune.sqlite /tmp/tune.sqlite
T="--arch sm_90 --db /tmp/tune.sqlite --budget ${1:-8} --time ${2:-60}"
{
$K tune examples/convnext_block.pat $T --unfuse all --kernel k2_layernorm --where path=tile
$K tune examples/convnext_block.pat $T --unfuse all --kernel k2_layernorm --where path=regs
} 2>&1 | grep -E "^k[0-9]|kernels in" | tee $OUT/tune.txt
sqlite3 /tmp/tune.sqlite "select t.config, round(t.median_ms,4), t.status from trials t join kernels k on k.id=t.kernel_id where k.op like '%layernorm%' and k.shape like '%64,768,512%' and t.run_id >= (select max(id)-1 from runs) order by t.median_ms" 2>/dev/null | tee $OUT/ln.txt || python3 -c "print('no sqlite3')"
cp /tmp/tune.sqlite $OUT/
