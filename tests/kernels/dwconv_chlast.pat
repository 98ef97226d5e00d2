# depthwise conv1d between channels-last tensors: the input is a transposed
# [B, T, C] tensor and the result goes back channels-last through a
# transpose, which the planner gives the conv (it writes [B, Tout, C]).  An
# f16 conv at LYNXNet2's K = 31 over a T that ends inside a 128-output row
# tile, C a multiple of 8 (16-byte rows on path=mma); a bf16 one of 12
# channels (no 16-byte rows); an f32 one of stride 2 and dilation 2.
model dwconv_chlast
dim B = 2, C = 40

input  h   : f16[B, 300, C]
input  u   : bf16[B, 130, 12]
input  v   : f32[1, 77, 24]
weight w31 : f16[C, 1, 31]
weight b31 : f16[C]
weight w7  : bf16[12, 1, 7]
weight w5  : f32[24, 1, 5]
weight b5  : f32[24]

yh = transpose(conv1d(transpose(h, 1, 2), w31, b31, padding=15, groups=C), 1, 2)
zh = relu(yh)
yu = transpose(conv1d(transpose(u, 1, 2), w7, padding=3, groups=12), 1, 2)
zu = yu * 2.0
yv = transpose(conv1d(transpose(v, 1, 2), w5, b5, stride=2, padding=2, dilation=2, groups=24), 1, 2)
zv = yv + 1.0
output zh, zu, zv
