# A9: reshape with two -1 axes.
# expect: 5:16: error: reshape: only one axis may be -1
model m
input x : f32[2, 3, 4]
y = reshape(x, [-1, -1])
output y
