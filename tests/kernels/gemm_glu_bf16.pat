# gemm template: gemm_glu in bf16 with a channel-first input
model gemm_glu_bf16
dim B = 1, T = 33, C = 32, N = 48
dtype DT = bf16

input  x  : DT[B, C, T]
weight w  : DT[2*N, C]
weight b  : DT[2*N]

o, g = split(linear(transpose(x, 1, 2), w, b), [N, N], axis=-1)
y    = o * softsign(g)
output y
