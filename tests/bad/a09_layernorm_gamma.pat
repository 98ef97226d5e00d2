# A9: LayerNorm gamma of the wrong size.
# expect: 6:5: error: layernorm: normalised size mismatch 5 ('g' f32[5]
model m
input x : f32[2, 4]
weight g : f32[5]
y = layernorm(x, g)
output y
