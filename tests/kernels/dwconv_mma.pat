# depthwise conv1d on the tensor cores (dwconv path=mma, CUDA sm_80+): a
# channels-last f16 input at LYNXNet2's K = 31 over a T that ends inside a
# 128-output row tile; bf16 channel-first with dilation and an odd T (the
# scalar stores), K = 7 (one k step), K = 1, and 12 channels (no 16-byte
# staging); a stride of 2, which the path refuses.
model dwconv_mma
dim B = 2, C = 40

input  h   : f16[B, 300, C]
input  x   : bf16[B, 24, 257]
input  u   : f16[1, 12, 130]
input  v   : f16[B, 16, 200]
weight w31 : f16[C, 1, 31]
weight b31 : f16[C]
weight w5  : bf16[24, 1, 5]
weight b5  : bf16[24]
weight w7  : f16[12, 1, 7]
weight w1  : f16[16, 1, 1]
weight b1  : f16[16]
weight w3  : f16[16, 1, 3]

ht = transpose(h, 1, 2)
yh = conv1d(ht, w31, b31, padding=15, groups=C)
yx = conv1d(x, w5, b5, padding=4, dilation=2, groups=24)
yu = conv1d(u, w7, padding=3, groups=12)
yv = conv1d(v, w1, b1, groups=16)
ys = conv1d(v, w3, stride=2, padding=1, groups=16)
output yh, yx, yu, yv, ys
