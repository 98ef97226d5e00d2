# Several errors found by the checker: all reported, no cascade.
# expect: 9:9: error: unknown op 'tanhh' (did you mean 'tanh'?)
# expect: 10:7: error: add: shapes do not broadcast
# expect: 11:8: error: output 'nope' is never defined
# expect-errors: 3
model m
input x : f32[4]
input y : f32[5]
a = x + tanhh(x)
b = x + y
output nope
