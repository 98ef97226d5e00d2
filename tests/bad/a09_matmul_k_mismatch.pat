# A9: batched matmul with K 256 against 255.
# expect: 7:5: error: matmul: K mismatch 256 ('a' f16[2, 4, 256]
# expect: 7:5: error: vs 255 ('b' f16[2, 255, 8]
model m
input a : f16[2, 4, 256]
input b : f16[2, 255, 8]
y = matmul(a, b)
output y
