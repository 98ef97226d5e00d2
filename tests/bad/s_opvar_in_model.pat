# 'op' variables belong to pattern files only.
# expect: 5:1: error: 'op' variables are allowed only in pattern files
model m
input x : f32[4]
op ACT = atan | silu
y = exp(x)
output y
