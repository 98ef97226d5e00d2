# A9: the input is shorter than the kernel span.
# expect: 6:5: error: conv1d: the input length 4 with padding 0 is shorter than the kernel span 9
model m
input x : f32[1, 2, 4]
weight w : f32[2, 2, 5]
y = conv1d(x, w, kernel=5, dilation=2)
output y
