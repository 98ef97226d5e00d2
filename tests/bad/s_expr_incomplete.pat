# An expression ending in an operator.
# expect: 5:8: error: expected an expression, found end of line
model m
input x : f32[4]
y = x +
output y
