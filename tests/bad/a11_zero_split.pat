# A11: a split size of 0.
# expect: 5:17: error: split: size 0; sizes must be positive
model m
input x : f32[4]
a, b = split(x, [0, 4])
output a, b
