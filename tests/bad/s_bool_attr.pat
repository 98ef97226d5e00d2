# keepdim is true or false.
# expect: 5:20: error: sum: keepdim must be true or false
model m
input x : f32[2, 4]
y = sum(x, keepdim=1)
output y
