# LayerNorm over the last axis, then a linear layer, then GELU (exact or
# tanh): the ConvNeXt decoder block and transformer FFNs.  The template can
# fold the LayerNorm into the GEMM (row statistics accumulated in the K loop,
# gamma folded into W, a per-row correction in the epilogue) or run a
# row-statistics pre-pass.  Optional: kgen tune also measures the model
# with this match left unfused (a LayerNorm kernel, then gemm_gelu), and
# kgen build keeps whichever is faster.
pattern ln_gemm_gelu
template gemm
optional
dim B, M, K, N
dtype DT
param eps, approximate

input  x     : DT[B, M, K]
weight gamma : DT[K]
weight beta  : DT[K]
weight w     : DT[N, K]
weight b     : DT[N]

h   = layernorm(x, gamma, beta, axis=-1, eps=eps)
out = gelu(linear(h, w, b), approximate=approximate)
output out
