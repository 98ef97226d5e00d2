# A11: a literal zero-size axis.
# expect: 4:18: error: dim is 0; dims must be positive
model m
input x : f32[4, 0]
