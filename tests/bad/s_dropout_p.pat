# dropout's p is in [0, 1).
# expect: 5:16: error: dropout: p must be in [0, 1), not 1.5
model m
input x : f32[4]
y = dropout(x, 1.5)
output y
