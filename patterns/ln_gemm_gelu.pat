# LayerNorm over the last axis, then a linear layer, then GELU (exact or
# tanh): the ConvNeXt decoder block and transformer FFNs.  The template can
# fold the LayerNorm into the GEMM (row statistics accumulated in the K loop,
# gamma folded into W, a per-row correction in the epilogue) or run a
# row-statistics pre-pass.
pattern ln_gemm_gelu
template gemm
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
