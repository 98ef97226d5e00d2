# scratch: the GELU GEMM alone (the small ln_gemm_gelu's k1)
model gg
dim B = 1, M = 49152, K = 256, N = 1024
dtype DT = f16

input  x : DT[B, M, K]
weight w : DT[N, K]
weight b : DT[N]

out = gelu(linear(x, w, b))
output out
