# gemm template: gemm_glu (linear -> split -> value * act(gate)) with every
# activation, odd sizes, and a transposed input (LYNXNet2's layout)
model gemm_glu
dim B = 2, T = 37, C = 17, N = 33
dtype DT = f32

input  x  : DT[B, T, C]
input  xc : DT[B, C, T]
weight w  : DT[2*N, C]
weight b  : DT[2*N]

o1, g1 = split(linear(x, w, b), [N, N], axis=-1)
y1     = o1 * atan(g1)
o2, g2 = split(linear(x, w, b), [N, N], axis=-1)
y2     = o2 * silu(g2)
o3, g3 = split(linear(transpose(xc, 1, 2), w, b), [N, N], axis=-1)
y3     = o3 * softsign(g3)
o4, g4 = split(linear(x, w, b), [N, N], axis=-1)
y4     = o4 * sigmoid(g4)
output y1, y2, y3, y4
