# A6: an unknown op with nothing close to it.
# expect: 5:9: error: unknown op 'frobnicate'
model m
input x : f32[4]
y = x + frobnicate(x)
output y
