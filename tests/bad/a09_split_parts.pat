# A9: 3 parts do not divide 8.
# expect: 5:34: error: split: 3 parts do not divide axis 1
model m
input x : f32[2, 8]
a, b, c = split(x, axis=1, parts=3)
output a, b, c
