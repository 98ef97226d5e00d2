# A7: an input is not an output.
# expect: 6:11: error: output 'x' is an input; outputs must be computed
model m
input x : f32[4]
y = exp(x)
output y, x
