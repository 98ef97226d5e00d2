# A6: a call used as a statement.
# expect: 5:1: error: a call must be assigned to a name: write 'y = exp(...)'
model m
input x : f32[4]
exp(x)
