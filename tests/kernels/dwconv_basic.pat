# depthwise conv1d on the dwconv template: T = 1, 17, 1001; K = 1, 3, 7;
# padding, stride, dilation; with and without bias; f32/f16/bf16.
model dwconv_basic
dim C = 17

input  x1    : f32[3, C, 1]
input  x17   : f16[1, C, 17]
input  x1001 : bf16[3, 5, 1001]
input  xs    : f32[3, 33, 17]
input  xk    : f16[1, 64, 1001]
weight w7    : f32[C, 1, 7]
weight b7    : f32[C]
weight w3    : f16[C, 1, 3]
weight v5    : bf16[5, 1, 5]
weight c5    : bf16[5]
weight ws    : f32[33, 1, 3]
weight wk    : f16[64, 1, 1]
weight bk    : f16[64]

y1    = conv1d(x1, w7, b7, padding=3, groups=C)
y17   = conv1d(x17, w3, groups=C)
y1001 = conv1d(x1001, v5, c5, padding=4, dilation=2, groups=5)
ys    = conv1d(xs, ws, stride=2, padding=1, groups=33)
yk    = conv1d(xk, wk, bk, groups=64)
output y1, y17, y1001, ys, yk
