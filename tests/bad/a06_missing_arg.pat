# A6: a required argument is missing.
# expect: 5:5: error: linear: missing argument 'w' (it takes: x, w, b)
model m
input x : f32[2, 4]
y = linear(x)
output y
