# split needs sizes or parts.
# expect: 5:8: error: split: give either the sizes
model m
input x : f32[4]
a, b = split(x, axis=0)
output a, b
