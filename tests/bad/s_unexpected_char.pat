# A character that is no token.
# expect: 5:7: error: unexpected character '@'
model m
input x : f32[4]
y = x @ x
output y
