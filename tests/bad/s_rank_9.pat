# Tensors have at most 8 axes.
# expect: 4:39: error: 9 axes; at most 8 are supported
model m
input x : f32[1, 1, 1, 1, 1, 1, 1, 1, 1]
