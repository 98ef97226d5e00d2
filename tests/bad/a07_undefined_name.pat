# A7: a name defined nowhere.
# expect: 5:14: error: undefined name 'q'
model m
input x : f32[4]
y = exp(x) * q
output y
