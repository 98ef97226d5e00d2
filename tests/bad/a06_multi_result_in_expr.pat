# A6: a call with two results used inside an expression.
# expect: 5:9: error: split gives 2 results here; assign them to names first
model m
input x : f32[4]
y = exp(split(x, parts=2))
output y
