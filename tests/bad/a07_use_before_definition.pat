# A7: a name used on a line above its definition, with a note there.
# expect: 6:9: error: 'z' is used before its definition
# expect-note: 7:1: 'z' is defined here
model m
input x : f32[4]
y = exp(z)
z = exp(x)
output y
