# A9: softmax over axis 2 of a rank-2 tensor.
# expect: 5:21: error: softmax: axis 2 is out of range for a rank-2 tensor (expected -2..1)
model m
input x : f32[2, 4]
y = softmax(x, axis=2)
output y
