# Elementwise kernels whose last axis is whole runs of 8 (VEC = 8 on CUDA):
# runs loaded 16 or 32 bytes at a time (f16, bf16, f32), broadcasts along
# the run and across it, a transposed operand and a split shifted along the
# run (both read element by element), a mask, a concat along a middle axis,
# two outputs of one shape, and a cast between storage types.
model elementwise_vec
dim B = 3, C = 24, T = 40
input x : f16[B, C, T]
input s : f16[B, C, 1]
input r : f32[1, 1, T]
input y : bf16[B, T, C]
input w : f32[B, C, 2 * T]
input m : bool[B, 1, T]
w0, w1 = split(w, [T, T], axis=2)
a = cast(x, f32) + cast(s, f32) * r
b = a * sigmoid(cast(transpose(y, 1, 2), f32)) + w1
c = masked_fill(tanh(b), m, 0.0)
q1, q2 = split(c, [8, 16], axis=1)
d = concat([q2 * 0.5, -q1], axis=1)
o1 = cast(d + a + w1, f16)
o2 = cast(gelu(d), bf16)
output o1, o2
