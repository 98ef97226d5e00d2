model ln_gemm
dim M = 4, K = 8, N = 16
dtype DT = bf16
input  x : DT[M, K]
weight g : DT[K]
weight b : DT[K]
weight w : DT[N, K]
h = layernorm(x, g, b, axis=-1, eps=1e-5)
out = gelu(linear(h, w), approximate="tanh")
output out
