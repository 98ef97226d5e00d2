# gemm template: bf16 linear layers, tile multiples and one row
model gemm_linear_bf16
dim M = 128, K = 64, N = 128
dtype DT = bf16

input  x  : DT[M, K]
input  x1 : DT[1, K]
input  xt : DT[K, M]
weight w  : DT[N, K]
weight b  : DT[N]

y1 = linear(x, w, b)
y2 = linear(x1, w, b)                  # M = 1
y3 = linear(transpose(xt, 0, 1), w)    # transposed x
output y1, y2, y3
