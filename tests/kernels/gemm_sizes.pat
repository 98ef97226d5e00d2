# gemm template: sizes that are not tile multiples: M = 1001, K = 127,
# N = 129 (tile + 1), a long K = 1001 with K % 8 != 0, and N = 257
model gemm_sizes
dim M = 1001, K = 127, N = 129, M2 = 65, K2 = 1001, N2 = 257
dtype DT = f16

input  x  : DT[M, K]
input  x2 : DT[M2, K2]
weight w  : DT[N, K]
weight b  : DT[N]
weight w2 : DT[N2, K2]

y1 = linear(x, w, b)
y2 = linear(x2, w2)
output y1, y2
