# gemm template: conv1d as an implicit GEMM: kernel 3 with padding,
# dilation, stride and groups
model gemm_conv
dim B = 2, C = 16, D = 12, T = 37
dtype DT = f32

input  x  : DT[B, C, T]
weight w3 : DT[D, C, 3]
weight b3 : DT[D]
weight wg : DT[D, C/2, 3]
weight w5 : DT[D, C, 5]

y1 = conv1d(x, w3, b3, kernel=3, padding=1)
y2 = conv1d(x, w3, b3, kernel=3, dilation=2, padding=2)
y3 = conv1d(x, w3, kernel=3, stride=2)
y4 = conv1d(x, wg, b3, kernel=3, padding=1, groups=2)
y5 = conv1d(x, w5, b3, kernel=5, stride=2, padding=3, dilation=3)
output y1, y2, y3, y4, y5
