# A10: inputs that fit, whose broadcast sum needs 2^50 bytes.
# expect: 6:7: error: needs 2^50 bytes
model m
input a : f32[65536, 1, 65536]
input b : f32[65536, 1]
y = a + b
output y
