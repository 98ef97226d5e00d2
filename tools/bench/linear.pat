# tools/bench: a plain linear layer, the GEMM of the large ln_gemm_gelu
# (M=8192 K=4096 N=16384) without its LayerNorm and GELU.
model linear
dim B = 1, M = 8192, K = 4096, N = 16384
dtype DT = f16

input  x : DT[B, M, K]
weight w : DT[N, K]
weight b : DT[N]

out = linear(x, w, b)
output out
