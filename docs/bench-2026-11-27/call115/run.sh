#!/bin/bash
# (.devdb/tpl was written from templates/ by an earlier form of docs/bench-2026-11-27/call117/patch_kq.py:
#  one walk, and no counters inside the K loop)
# call 115: where a pp consumer's cycles go on ConvNeXt's GELU GEMM (49152 x 2048 x 512) and the
# plain linear of that shape: clock64 counters per phase (turn wait, K loop issue, drain,
# epilogue) from a scratch copy of the templates (docs/bench-2026-11-27/call117/patch_kq.py), beside the tuner's medians
export PYTHONUNBUFFERED=1 KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
W="--where load=tma --where sched=pp --where path=wgmma"
for cfg in "BM=128 BN=128 STAGES=4" "BM=64 BN=256 STAGES=4" "BM=128 BN=64 STAGES=4"; do
  ww=$W; for c in $cfg; do ww="$ww --where $c"; done
  echo "== gelu $cfg"
  KGEN_TEMPLATES=$PWD/.devdb/tpl $K check examples/convnext_block.pat --unfuse k2_ln_gemm_gelu --arch sm_90 --kernel k1_gemm_gelu $ww --configs 1 2>&1 | grep -E "KQ|ok|wrong" | sort | uniq | head -12
  echo "== linear $cfg"
  KGEN_TEMPLATES=$PWD/.devdb/tpl $K check docs/bench-2026-11-27/call115/lin512.pat --arch sm_90 --kernel k0_linear $ww --configs 1 2>&1 | grep -E "KQ|ok|wrong" | sort | uniq | head -12
done
export KGEN_TEMPLATES=$PWD/templates
rm -f /tmp/a.sqlite
for cfg in "BM=128 BN=128 STAGES=4" "BM=64 BN=256 STAGES=4"; do
  ww=$W; for c in $cfg; do ww="$ww --where $c"; done
  $K tune examples/convnext_block.pat --unfuse k2_ln_gemm_gelu --kernel k1_gemm_gelu --arch sm_90 --db /tmp/a.sqlite $ww --budget 1 --force 2>&1 | tail -1
  $K tune docs/bench-2026-11-27/call115/lin512.pat --kernel k0_linear --arch sm_90 --db /tmp/a.sqlite $ww --budget 1 --force 2>&1 | tail -1
done
$K cache list --db /tmp/a.sqlite 2>&1 | cut -c1-250
python3 - <<'PY'
import torch, triton.testing as tt
x = torch.randn(49152, 512, device="cuda", dtype=torch.half); w = torch.randn(2048, 512, device="cuda", dtype=torch.half); b = torch.randn(2048, device="cuda", dtype=torch.half)
f = lambda: torch.nn.functional.linear(x, w, b)
print("cuBLAS linear 49152x2048x512: %.4f ms" % tt.do_bench(f, return_mode="median"))
g = lambda: torch.nn.functional.gelu(torch.nn.functional.linear(x, w, b))
print("eager linear+gelu: %.4f ms" % tt.do_bench(g, return_mode="median"))
PY
