# A12: a statement keyword as a name.
# expect: 5:1: error: 'output' is a keyword and cannot be used as a name
model m
input x : f32[4]
output = exp(x)
