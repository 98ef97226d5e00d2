# gemm template: ln_gemm_gelu (LayerNorm -> linear -> GELU), odd sizes,
# exact and tanh GELU, and the ConvNeXt layout (x a transposed conv output)
model gemm_ln_gelu
dim B = 2, C = 16, T = 37, K = 33, N = 17
dtype DT = f32

input  x   : DT[B, T, K]
input  xc  : DT[B, C, T]
weight g   : DT[K]
weight be  : DT[K]
weight w   : DT[N, K]
weight b   : DT[N]
weight gc  : DT[C]
weight bec : DT[C]
weight wc  : DT[4*C, C]
weight bc  : DT[4*C]

y1 = gelu(linear(layernorm(x, g, be, axis=-1, eps=1e-5), w, b), approximate="none")
y2 = gelu(linear(layernorm(x, g, be, axis=-1, eps=1e-6), w, b), approximate="tanh")
h  = transpose(xc, 1, 2)
y3 = gelu(linear(layernorm(h, gc, bec, axis=-1, eps=1e-6), wc, bc), approximate="none")
output y1, y2, y3
