# conv1d stride 0.
# expect: 6:5: error: conv1d: groups, stride and dilation must be >= 1 and padding >= 0
model m
input x : f32[2, 8, 16]
weight w : f32[4, 8, 1]
y = conv1d(x, w, kernel=1, stride=0)
output y
