# A6: the same argument given twice.
# expect: 6:18: error: linear: argument 'x' given twice
model m
input x : f32[2, 4]
weight w : f32[3, 4]
y = linear(x, w, x=x)
output y
