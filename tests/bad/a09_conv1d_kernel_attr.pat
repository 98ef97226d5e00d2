# A9: kernel=3 but the weight has kernel size 1.
# expect: 6:25: error: conv1d: kernel=3 but the weight 'w' f32[4, 8, 1]
model m
input x : f32[2, 8, 16]
weight w : f32[4, 8, 1]
y = conv1d(x, w, kernel=3)
output y
