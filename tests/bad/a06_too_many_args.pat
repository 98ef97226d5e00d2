# A6: wrong arity: exp takes one argument.
# expect: 5:12: error: exp takes at most 1 argument (x), got 2
model m
input x : f32[4]
y = exp(x, x)
output y
