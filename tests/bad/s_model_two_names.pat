# 'model' takes one name.
# expect: 3:10: error: one name expected
model a, b
input x : f32[4]
y = exp(x)
output y
