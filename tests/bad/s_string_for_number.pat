# A string where a number is needed.
# expect: 5:34: error: leaky_relu: negative_slope must be a number
model m
input x : f32[4]
y = leaky_relu(x, negative_slope="0.1")
output y
