# A9: conv1d whose weight expects 6 input channels for an 8-channel x.
# expect: 7:5: error: conv1d: channel mismatch: 'x' f32[2, 8, 16]
# expect: 7:5: error: needs 8 per group, not 6
model m
input x : f32[2, 8, 16]
weight w : f32[4, 6, 1]
y = conv1d(x, w, kernel=1)
output y
