# A10: [65536, 65536, 65536] f32 needs 2^50 bytes.
# expect: 4:7: error: tensor 'x' f32[65536, 65536, 65536] needs 2^50 bytes
model m
input x : f32[65536, 65536, 65536]
