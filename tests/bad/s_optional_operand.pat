# 'optional' takes nothing: an operand after it is a trailing token.
# expect: 5:10: error: expected end of line, found 'x'
# expect-errors: 1
model m
optional x
input x : f32[4]
y = exp(x)
output y
