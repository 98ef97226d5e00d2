# A5: ']' where ')' is due: the error is at ']', the note at the '('.
# expect: 6:10: error: expected ')' or ',', found ']'
# expect-note: 6:8: to match this '('
model m
input x : f32[4]
y = exp(x]
output y
