# A9: linear of an f16 input and an f32 weight.
# expect: 7:5: error: linear: dtype mismatch: 'x' f16[2, 4] (
# expect: 7:5: error: vs 'w' f32[3, 4] (
model m
input x : f16[2, 4]
weight w : f32[3, 4]
y = linear(x, w)
output y
