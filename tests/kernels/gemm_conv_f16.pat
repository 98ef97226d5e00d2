# gemm template: f16 conv1d, kernel 1 (a GEMM over channels read through
# strides) and kernel 3, with a transposed (channel-last) input
model gemm_conv_f16
dim B = 2, C = 32, D = 48, T = 33
dtype DT = f16

input  x  : DT[B, C, T]
input  xl : DT[B, T, C]
weight w1 : DT[D, C, 1]
weight b1 : DT[D]
weight w3 : DT[D, C, 3]
weight wg : DT[D, C/4, 1]

y1 = conv1d(x, w1, b1, kernel=1)
y2 = conv1d(transpose(xl, 1, 2), w3, b1, kernel=3, padding=1)
y3 = conv1d(x, w1, kernel=1, stride=2)
y4 = conv1d(x, wg, b1, kernel=1, groups=4)
y5 = conv1d(x, w1, b1, kernel=1, padding=1)
output y1, y2, y3, y4, y5
