# 'param' belongs to pattern files only.
# expect: 5:1: error: 'param' is allowed only in pattern files
model m
input x : f32[4]
param scale
y = exp(x)
output y
