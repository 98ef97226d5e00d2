# gemm template: ln_gemm_gelu in f16 at tile multiples (K = 64, N = 128) and odd sizes
model gemm_ln_gelu_f16
dim B = 2, M = 64, K = 64, N = 128, T = 17, K2 = 40
dtype DT = f16

input  x  : DT[B, M, K]
input  x2 : DT[B, T, K2]
weight g  : DT[K]
weight be : DT[K]
weight w  : DT[N, K]
weight b  : DT[N]
weight g2 : DT[K2]
weight b2 : DT[K2]
weight w2 : DT[33, K2]
weight c2 : DT[33]

y1 = gelu(linear(layernorm(x, g, be, axis=-1, eps=1e-5), w, b), approximate="none")
y2 = gelu(linear(layernorm(x2, g2, b2, axis=-1, eps=1e-5), w2, c2), approximate="tanh")
output y1, y2
