# A9: sdpa with q and k of different head dims.
# expect: 7:5: error: sdpa: head dim mismatch 8 ('q' f32[1, 2, 4, 8]
model m
input q : f32[1, 2, 4, 8]
input k : f32[1, 2, 4, 16]
input v : f32[1, 2, 4, 8]
y = sdpa(q, k, v)
output y
