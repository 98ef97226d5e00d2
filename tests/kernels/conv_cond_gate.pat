# gemm template: conv_cond_gate (WaveNet's dilated conv and the condition's
# 1x1 conv as one GEMM, gated), f16 at multiples of 64.  At DIL = 2 x is
# written channel-last (compiler/layout.c) and the conv's K tiles are
# K-major boxes; at DIL = 8 x stays channel-first and every K tile is an
# M-major panel.  The second block's T is not a multiple of 64: there the
# pattern does not match and the convs stay apart.
model conv_cond_gate
dim B = 2, C = 64, H = 32, T = 64, T3 = 40
dtype DT = f16

input  x    : DT[B, C, T]
input  s    : DT[B, C]
input  cond : DT[B, H, T]
weight w2   : DT[2*C, C, 3]
weight b2   : DT[2*C]
weight w8   : DT[2*C, C, 3]
weight b8   : DT[2*C]
weight wc   : DT[2*C, H, 1]
weight bc   : DT[2*C]
input  x3   : DT[B, C, T3]
input  c3   : DT[B, H, T3]

xs         = x + unsqueeze(s, axis=2)
y2         = conv1d(xs, w2, b2, kernel=3, dilation=2, padding=2) + conv1d(cond, wc, bc, kernel=1)
g2, f2     = split(y2, [C, C], axis=1)
z2         = sigmoid(g2) * tanh(f2)

y8         = conv1d(x, w8, b8, kernel=3, dilation=8, padding=8) + conv1d(cond, wc, bc, kernel=1)
g8, f8     = split(y8, [C, C], axis=1)
z8         = sigmoid(g8) * tanh(f8)

y3         = conv1d(x3, w2, b2, kernel=3, dilation=2, padding=2) + conv1d(c3, wc, bc, kernel=1)
g3, f3     = split(y3, [C, C], axis=1)
z3         = sigmoid(g3) * tanh(f3)
output z2, z8, z3
