# A string where a tensor is needed.
# expect: 5:9: error: expected a tensor, found a string
model m
input x : f32[4]
y = exp("x")
output y
