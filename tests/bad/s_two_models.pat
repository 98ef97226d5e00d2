# A file holds one model.
# expect: 5:1: error: a file holds one model
# expect-note: 4:1: the model is named here
model m
model n
input x : f32[4]
y = exp(x)
output y
