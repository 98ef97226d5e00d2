# A7: an input declared twice: error at the second, note at the first.
# expect: 6:7: error: redefinition of input 'x'
# expect-note: 5:7: previous definition of 'x' is here
model m
input x : f32[4]
input x : f32[8]
y = exp(x)
output y
