# A9: concat of a rank-2 and a rank-1 tensor.
# expect: 6:16: error: concat: rank mismatch: 'a' f32[3, 4]
model m
input a : f32[3, 4]
input b : f32[4]
y = concat([a, b], axis=0)
output y
