#!/bin/sh
# tools/gpu_check_gemm.sh [KGEN CHECK OPTIONS] -- kgen check --arch sm_90 on
# a CUDA machine over every kind of GEMM operand and epilogue in
# templates/gemm.lua, at small, ragged dims: contiguous A (linear, both
# dtypes), the LayerNorm prologue, A read along M (the 1x1 and dilated
# convs of WaveNet and gated_tanh_residual, T=100 scalar and T=128 vector
# loads), gemm_glu (LYNXNet2) and the encoder's projections.  Extra options
# go to every check, e.g. --where path=wgmma to check one path.  Run from
# the repository root with build-dev-bin/kgen (see tools/gpu_build.sh);
# prints the failures and one summary line per model (every candidate's
# line with ALL=1).
export KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns KGEN_INCLUDE=$PWD/include
K=${KGEN:-build-dev-bin/kgen}
mm=$(mktemp -d)/mm.pat
cat >"$mm" <<'PAT'
model mm
dim M = 300, K = 520, N = 328
dtype DT = f16
input  x : DT[M, K]
weight w : DT[N, K]
weight b : DT[N]
out = linear(x, w, b)
output out
PAT
for args in "$mm" "$mm --dtype DT=bf16" "$mm --dim K=64 --dim N=64" \
            "tools/bench/ln_gemm_gelu.pat --dim M=300 --dim K=256 --dim N=328" \
            "tools/bench/ln_gemm_gelu.pat --dim M=130 --dim K=1000 --dim N=200" \
            "examples/wavenet_layer.pat --dim B=2 --dim C=64 --dim H=32 --dim T=100" \
            "examples/wavenet_layer.pat --dim B=2 --dim C=64 --dim H=32 --dim T=128" \
            "examples/lynxnet2_block.pat --dim B=2 --dim T=72 --dim C=64" \
            "examples/encoder_layer.pat --dim B=2 --dim L=40 --dim C=48 --dim HD=24 --dim F=64" \
            "tools/bench/gated_tanh_residual.pat --dim B=2 --dim C=64 --dim T=96" \
            "tools/bench/gated_tanh_residual.pat --dim B=2 --dim C=128 --dim T=256"; do
  echo "== $args"
  # shellcheck disable=SC2086
  if [ "${ALL:-0}" = 1 ]; then
    $K check $args --arch sm_90 "$@" 2>&1
  else
    $K check $args --arch sm_90 "$@" 2>&1 | grep -E "FAIL|candidates ok|error" | head -12
  fi
done
