# A10/A11: a dim expression that comes out 0.
# expect: 5:17: error: dim is 0; dims must be positive
model m
dim C = 4
input x : f32[C - 4]
