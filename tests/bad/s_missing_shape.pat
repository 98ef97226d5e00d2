# An input type without a shape.
# expect: 4:14: error: expected '[' and the shape after the dtype, found end of line
model m
input x : f32
