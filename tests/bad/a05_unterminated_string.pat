# A5: an unterminated string: the error points at the opening quote.
# expect: 5:25: error: unterminated string started here
model m
input x : f32[4]
y = gelu(x, approximate="tanh)
output y
