# A7: a model with no output statement.
# expect: 3:7: error: model 'm' has no output (add 'output NAME')
model m
input x : f32[4]
y = exp(x)
