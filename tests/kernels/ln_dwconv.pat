# pattern ln_dwconv: a LayerNorm over the channels of [B, T, C] read by a
# depthwise conv1d as [B, C, T], the result back to channel-last
# (templates/dwconv.lua under the pattern: path=mma in clusters that share
# each row's statistics, path=tile re-reading them).  y1 is LYNXNet2's
# conv (K = 31, padding 15) at T = 301, not whole 128-step row tiles;
# y2 bf16 at K = 7 with 40 channels (clusters of 5 blocks at BC = 8); y3
# f32 with an output shorter than its input (K = 5, padding 1: the tile
# path only); y4 a LayerNorm of a transposed [B, C, T] input (its
# channels strided, staged a value at a time).
model ln_dwconv
dim B = 2, T = 301, C = 64

input  x  : f16[B, T, C]
weight g1 : f16[C]
weight e1 : f16[C]
weight w1 : f16[C, 1, 31]
weight b1 : f16[C]
input  xb : bf16[2, 150, 40]
weight g2 : bf16[40]
weight e2 : bf16[40]
weight w2 : bf16[40, 1, 7]
weight b2 : bf16[40]
input  xf : f32[3, 37, 24]
weight g3 : f32[24]
weight e3 : f32[24]
weight w3 : f32[24, 1, 5]
weight b3 : f32[24]
input  xt : f16[2, 48, 140]
weight g4 : f16[48]
weight e4 : f16[48]
weight w4 : f16[48, 1, 9]
weight b4 : f16[48]

y1 = transpose(conv1d(transpose(layernorm(x, g1, e1, axis=-1, eps=1e-5), 1, 2), w1, b1, kernel=31, padding=15, groups=C), 1, 2)
y2 = transpose(conv1d(transpose(layernorm(xb, g2, e2, axis=-1, eps=1e-6), 1, 2), w2, b2, kernel=7, padding=3, groups=40), 1, 2)
y3 = transpose(conv1d(transpose(layernorm(xf, g3, e3, axis=-1), 1, 2), w3, b3, kernel=5, padding=1, groups=24), 1, 2)
y4 = transpose(conv1d(transpose(layernorm(transpose(xt, 1, 2), g4, e4, axis=-1), 1, 2), w4, b4, kernel=9, padding=4, groups=48), 1, 2)
output y1, y2, y3, y4
