# GELU's approximate is "none" or "tanh".
# expect: 5:25: error: gelu: approximate must be "none" or "tanh", not "fast"
model m
input x : f32[4]
y = gelu(x, approximate="fast")
output y
