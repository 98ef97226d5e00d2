# gemm template: gemm_glu in f16 at tile multiples and odd sizes
model gemm_glu_f16
dim B = 2, T = 64, C = 64, N = 64, T2 = 17, C2 = 24, N2 = 33
dtype DT = f16

input  x  : DT[B, T, C]
input  x2 : DT[B, T2, C2]
weight w  : DT[2*N, C]
weight b  : DT[2*N]
weight w2 : DT[2*N2, C2]
weight b2 : DT[2*N2]

o1, g1 = split(linear(x, w, b), [N, N], axis=-1)
y1     = o1 * atan(g1)
o2, g2 = split(linear(x2, w2, b2), [N2, N2], axis=-1)
y2     = o2 * silu(g2)
output y1, y2
