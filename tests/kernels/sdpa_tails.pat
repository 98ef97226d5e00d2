# Kernel test: shapes that fit no tile, odd head dims, D != E, contiguous
# operands:
#  - f16: one query over 1001 keys, head dim 12, value dim 8;
#  - f32: 127 queries over 127 keys, head dim 64, value dim 24, causal;
#  - bf16: 1001 queries over 17 keys, head dim 8, value dim 12, rank 3
#    (one batch axis), scale 0.5;
#  - f32: rank 2 (no batch axis), 5 queries over 9 keys, head dim 24, a bool
#    mask [L, S] (true keeps a key): rows with no key give NaN.
model sdpa_tails
dim B = 1, H = 1

input q1 : f16[B, H, 1, 12]
input k1 : f16[B, H, 1001, 12]
input v1 : f16[B, H, 1001, 8]
input q2 : f32[B, H, 127, 64]
input k2 : f32[B, H, 127, 64]
input v2 : f32[B, H, 127, 24]
input q3 : bf16[2, 1001, 8]
input k3 : bf16[2, 17, 8]
input v3 : bf16[2, 17, 12]
input q4 : f32[5, 24]
input k4 : f32[9, 24]
input v4 : f32[9, 24]
input m4 : bool[5, 9]

o1 = sdpa(q1, k1, v1)
o2 = sdpa(q2, k2, v2, causal=true)
o3 = sdpa(q3, k3, v3, scale=0.5)
o4 = sdpa(q4, k4, v4, m4)

output o1, o2, o3, o4
