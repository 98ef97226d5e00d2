# A linear layer followed by GELU (exact or tanh): transformer FFNs, and the
# GEMM that remains when the tuner splits an ln_gemm_gelu into a LayerNorm
# kernel and this one.  GELU runs in the GEMM's epilogue, so the linear's
# output is never stored before it.
pattern gemm_gelu
template gemm
dim B, M, K, N
dtype DT
param approximate

input  x : DT[B, M, K]
weight w : DT[N, K]
weight b : DT[N]

out = gelu(linear(x, w, b), approximate=approximate)
output out
