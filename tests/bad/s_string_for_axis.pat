# A string where an axis is needed: the message names the axis, not a dim.
# expect: 5:21: error: softmax: axis
model m
input x : f32[2, 4]
y = softmax(x, axis="1")
output y
