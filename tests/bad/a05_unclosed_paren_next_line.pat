# A5: '(' left open before the next statement: the error is at the token
# that cannot continue the call, the note at the '('.
# expect: 9:1: error: expected ')' or ',', found 'output'
# expect-note: 8:8: to match this '('
# expect-errors: 1
model m
input x : f32[4]
y = exp(x
output y
