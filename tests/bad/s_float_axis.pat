# A fractional axis: the message names the axis, not a dim.
# expect: 6:18: error: transpose: 
# expect: 6:18: error: 0.5
model m
input x : f32[2, 4]
y = transpose(x, 0.5, 1)
output y
