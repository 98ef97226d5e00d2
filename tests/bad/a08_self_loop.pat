# A8: a self-loop: 'a' in its own definition is used before its definition
# (not 'undefined': it is defined, on this very line).
# expect: 7:9: error: 'a' is used
# expect-note: 7:1: 'a' is defined here
model m
input x : f32[4]
a = x + a
output a
