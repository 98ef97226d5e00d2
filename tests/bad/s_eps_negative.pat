# LayerNorm eps must be >= 0.
# expect: 5:22: error: layernorm: eps must be finite and >= 0, not -1
model m
input x : f32[2, 4]
y = layernorm(x, eps=-1.0)
output y
