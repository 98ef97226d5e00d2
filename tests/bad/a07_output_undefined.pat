# A7: an output that is never produced.
# expect: 6:11: error: output 'nope' is never defined
model m
input x : f32[4]
y = exp(x)
output y, nope
