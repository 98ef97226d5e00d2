# gemm template: f16 linear layers: odd sizes, a transposed (channel-first)
# input read through strides, K = 1 and tile-multiple sizes
model gemm_linear_f16
dim B = 2, M = 37, K = 17, N = 33, C = 64, T = 128
dtype DT = f16

input  x   : DT[B, M, K]
input  xc  : DT[B, C, T]            # channel-first; linear over C
input  x1  : DT[M, 1]
weight w   : DT[N, K]
weight b   : DT[N]
weight wc  : DT[2*C, C]
weight bc  : DT[2*C]
weight w1  : DT[N, 1]

y1 = linear(x, w, b)
y2 = linear(transpose(xc, 1, 2), wc, bc)   # x is a transposed view, M = B*T
y3 = linear(x1, w1)                        # K = 1
output y1, y2, y3
