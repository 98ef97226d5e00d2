# Elementwise kernels that write a transpose of what they read (order =
# tile): [B, C, T] in, [B, T, C] out with a broadcast channel vector (dims
# multiples of 8, not of the 64-wide tile: VEC = 8 applies on CUDA), two
# outputs of one shape in two dtypes from bf16, a rank-4 transpose of the
# last two axes in f32 with a last axis off 8 (VEC = 1 only), and a chain
# that reads along its output's last axis (the tile refused).
model elementwise_tile
dim B = 3, C = 72, T = 104, A = 2, U = 100
input x : f16[B, C, T]
input s : f16[B, C]
input y : bf16[B, C, T]
input z : f32[A, B, U, C]
input u : f16[B, T, C]
yt = transpose(x + unsqueeze(s, axis=2), 1, 2)
h = transpose(tanh(cast(y, f32)), 1, 2)
o1 = cast(h * 2.0, bf16)
o2 = sigmoid(h)
zt = transpose(z, 2, 3) * 3.0
v = u * 2.0 + 1.0
output yt, o1, o2, zt, v
