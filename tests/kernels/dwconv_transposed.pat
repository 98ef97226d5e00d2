# depthwise conv1d of channels-last views: the input is a transposed
# [B, T, C] tensor (and a split of one), so the channel axis has stride 1.
model dwconv_transposed
dim B = 3, C = 40

input  h   : f16[B, 1001, C]
input  g   : f32[1, 17, 2 * C]
input  e   : bf16[B, 1, 7]
weight w7  : f16[C, 1, 7]
weight b7  : f16[C]
weight w3  : f32[C, 1, 3]
weight b3  : f32[C]
weight we  : bf16[7, 1, 3]

ht = transpose(h, 1, 2)
yh = conv1d(ht, w7, b7, padding=3, groups=C)
g0, g1 = split(g, [C, C], axis=2)
gt = transpose(g1, 1, 2)
yg = conv1d(gt, w3, b3, stride=3, padding=2, dilation=3, groups=C)
et = transpose(e, 1, 2)
ye = conv1d(et, we, padding=1, groups=7)
output yh, yg, ye
