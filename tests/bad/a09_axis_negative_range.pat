# A9: transpose with axis -4 of a rank-3 tensor.
# expect: 5:18: error: transpose: axis -4 is out of range for a rank-3 tensor (expected -3..2)
model m
input x : f32[2, 4, 5]
y = transpose(x, -4, 1)
output y
