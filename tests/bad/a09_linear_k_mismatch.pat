# A9: linear with K 8 against a weight of K 7: both shapes and places.
# expect: 6:5: error: linear: K mismatch 8 ('x' f32[2, 3, 8] (tests/bad/a09_linear_k_mismatch.pat:4:7)) vs 7 ('w' f32[4, 7] (tests/bad/a09_linear_k_mismatch.pat:5:8))
model m
input x : f32[2, 3, 8]
weight w : f32[4, 7]
y = linear(x, w)
output y
