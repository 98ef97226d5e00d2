# gemm template: the fused patterns at sizes just past tile multiples
# (129 rows, 65 channels, 257 frames)
model gemm_sizes_fused
dim B = 1, T = 257, C = 65, N = 129
dtype DT = bf16

input  x  : DT[B, T, C]
input  xc : DT[B, C, T]
input  y  : DT[B, 2*C, T]
weight g  : DT[C]
weight be : DT[C]
weight w  : DT[N, C]
weight b  : DT[N]
weight w2 : DT[2*N, C]
weight b2 : DT[2*N]
weight wo : DT[2*C, C, 1]
weight bo : DT[2*C]

y1         = gelu(linear(layernorm(x, g, be, axis=-1, eps=1e-5), w, b), approximate="tanh")
o, gt      = split(linear(x, w2, b2), [N, N], axis=-1)
y2         = o * sigmoid(gt)
gate, filt = split(y, [C, C], axis=1)
z          = sigmoid(gate) * tanh(filt)
oo         = conv1d(z, wo, bo, kernel=1)
res, skip  = split(oo, [C, C], axis=1)
out        = (xc + res) * 0.7071067811865476
output y1, y2, out, skip
