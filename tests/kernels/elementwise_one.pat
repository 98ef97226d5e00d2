# The smallest shapes: one element, a scalar-like axis, and 17.
model elementwise_one
dim A = 1, B = 17
input x : f16[A]
input y : f32[B, A]
input z : bf16[A, B]
o1 = x * x + 1
o2 = abs(y - transpose(cast(z, f32), 0, 1)) + rsqrt(abs(y) + 1) + sqrt(abs(y)) + log(abs(y) + 1)
o3 = relu(neg(o2)) + minimum(y, 0.5) + y / 3
output o1, o3
