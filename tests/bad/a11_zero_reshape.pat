# A11: a reshape axis of 0.
# expect: 5:16: error: reshape: axis 1 is 0; axes must be positive
model m
input x : f32[4]
y = reshape(x, [4, 0])
output y
