# A9: shapes that do not broadcast.
# expect: 7:7: error: add: shapes do not broadcast: 'x' f32[2, 3] (
# expect: 7:7: error: and 'y' f32[2, 4] (
model m
input x : f32[2, 3]
input y : f32[2, 4]
z = x + y
output z
