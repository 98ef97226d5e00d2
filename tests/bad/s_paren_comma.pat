# A comma inside a parenthesised expression: only ')' can come next, so
# the message must not offer ','.
# expect: 7:7: error: expected ')'
# expect-not: or ','
model m
input x : f32[4]
y = (x, x)
output y
