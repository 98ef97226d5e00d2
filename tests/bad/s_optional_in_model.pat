# 'optional' belongs to pattern files only.
# expect: 5:1: error: 'optional' is allowed only in pattern files
# expect-errors: 1
model m
optional
input x : f32[4]
y = exp(x)
output y
