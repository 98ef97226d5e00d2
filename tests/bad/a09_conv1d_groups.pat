# A9: groups=3 does not divide 8 channels.
# expect: 6:5: error: conv1d: groups=3 does not divide the 8 input channels
model m
input x : f32[2, 8, 16]
weight w : f32[6, 2, 3]
y = conv1d(x, w, kernel=3, groups=3)
output y
