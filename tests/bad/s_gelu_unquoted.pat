# GELU's approximate is a string.
# expect: 5:25: error: gelu: approximate must be a string such as "none"
model m
input x : f32[4]
y = gelu(x, approximate=tanh)
output y
