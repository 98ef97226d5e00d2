# gemm template: linear layers, 2-D and 3-D, with and without bias, odd sizes
model gemm_linear
dim B = 3, M = 17, K = 33, N = 45
dtype DT = f32

input  x2 : DT[M, K]
input  x3 : DT[B, M, K]
weight w  : DT[N, K]
weight b  : DT[N]
weight w1 : DT[1, K]

y1 = linear(x2, w, b)          # 2-D with bias
y2 = linear(x2, w)             # 2-D without bias
y3 = linear(x3, w, b)          # 3-D with bias
y4 = linear(x3, w)             # 3-D without bias
y5 = linear(x3, w1)            # N = 1
output y1, y2, y3, y4, y5
