# A6: an unknown keyword argument; the message lists the real ones.
# expect: 5:13: error: gelu has no argument 'approx' (it takes: x, approximate)
model m
input x : f32[4]
y = gelu(x, approx="tanh")
output y
