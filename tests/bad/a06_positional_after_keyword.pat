# A6: a positional argument after a keyword argument.
# expect: 6:27: error: positional argument after a keyword argument
model m
input x : f32[2, 4]
weight g : f32[4]
y = layernorm(x, axis=-1, g)
output y
