# A9: masked_fill with a float mask.
# expect: 6:5: error: masked_fill: the mask must be bool, got 'm' f32[2, 4]
model m
input x : f32[2, 4]
input m : f32[2, 4]
y = masked_fill(x, m, 0.0)
output y
