# pattern dwconv_ln: a depthwise conv1d read channel-last and normalised
# over its channels (templates/dwconv_ln.lua), at sizes that are not whole
# tiles, in the three float types, with a channels-last input
# (x read through a transposed view of [B, T, C]) and with an output
# shorter than the input (padding 1 at kernel 5); y6's 2048 channels are
# too many for OpenCL's 48 KB buffer, so there only path=direct runs.  y8
# and y9 have T and C in multiples of 8, so that CUDA's load=v16 takes
# them (16-byte windows and stores), y9 with an output shorter than its
# input (no padding) that leaves a block's last steps past the end.
model dwconv_ln
dim B = 3, C = 72, T = 37

input  x  : f16[B, C, T]
input  hb : bf16[2, 45, 40]
input  xf : f32[B, 24, 19]
weight w7 : f16[C, 1, 7]
weight b7 : f16[C]
weight g7 : f16[C]
weight e7 : f16[C]
weight w3 : bf16[40, 1, 3]
weight b3 : bf16[40]
weight g3 : bf16[40]
weight e3 : bf16[40]
weight w5 : f32[24, 1, 5]
weight b5 : f32[24]
weight g5 : f32[24]
weight e5 : f32[24]
input  x6 : f16[1, 2048, 9]
weight w6 : f16[2048, 1, 7]
weight b6 : f16[2048]
weight g6 : f16[2048]
weight e6 : f16[2048]
input  x8 : f16[2, 64, 40]
weight w8 : f16[64, 1, 7]
weight b8 : f16[64]
weight g8 : f16[64]
weight e8 : f16[64]
input  x9 : bf16[2, 96, 24]
weight w9 : bf16[96, 1, 3]
weight b9 : bf16[96]
weight g9 : bf16[96]
weight e9 : bf16[96]

y7 = layernorm(transpose(conv1d(x, w7, b7, kernel=7, padding=3, groups=C), 1, 2), g7, e7, axis=-1, eps=1e-6)
y3 = layernorm(transpose(conv1d(transpose(hb, 1, 2), w3, b3, kernel=3, padding=1, groups=40), 1, 2), g3, e3, axis=-1)
y5 = layernorm(transpose(conv1d(xf, w5, b5, kernel=5, padding=1, groups=24), 1, 2), g5, e5, axis=-1, eps=1e-5)
y6 = layernorm(transpose(conv1d(x6, w6, b6, padding=3, groups=2048), 1, 2), g6, e6, axis=-1)
y8 = layernorm(transpose(conv1d(x8, w8, b8, kernel=7, padding=3, groups=64), 1, 2), g8, e8, axis=-1, eps=1e-6)
y9 = layernorm(transpose(conv1d(x9, w9, b9, kernel=3, groups=96), 1, 2), g9, e9, axis=-1)
output y7, y3, y5, y6, y8, y9
