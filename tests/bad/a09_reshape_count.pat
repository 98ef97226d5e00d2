# A9: reshape to a different element count.
# expect: 6:16: error: reshape: 'x' f32[2, 3, 4] (
# expect: 6:16: error: has 24 elements but the new shape has 20
model m
input x : f32[2, 3, 4]
y = reshape(x, [4, 5])
output y
