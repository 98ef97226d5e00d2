# Kernel test: the sdpa op with a float attn_mask, ADDED to the scores and
# broadcast to [B, H, L, S]:
#  - f32, head dim 128, mask [B, H, L, S];
#  - f16, head dim 24, mask [L, S];
#  - bf16, head dim 192, mask [1, H, 1, S] holding -inf where `drop` is true
#    (made by an elementwise kernel before the attention), so -inf scores
#    come from the additive mask.
model sdpa_floatmask
dim B = 1, H = 2, L = 17, S = 33
dim D1 = 128, D2 = 24, D3 = 192

input q1x  : f32[B, L, H, D1]
input k1x  : f32[B, S, H, D1]
input v1x  : f32[B, S, H, D1]
input m1   : f32[B, H, L, S]
input q2x  : f16[B, L, H, D2]
input k2x  : f16[B, S, H, D2]
input v2x  : f16[B, S, H, D2]
input m2   : f16[L, S]
input q3x  : bf16[B, L, H, D3]
input k3x  : bf16[B, S, H, D3]
input v3x  : bf16[B, S, H, D3]
input m3   : bf16[1, H, 1, S]
input drop : bool[1, H, 1, S]

o1 = sdpa(transpose(q1x, 1, 2), transpose(k1x, 1, 2), transpose(v1x, 1, 2), m1)
o2 = sdpa(transpose(q2x, 1, 2), transpose(k2x, 1, 2), transpose(v2x, 1, 2), m2)
m3i = masked_fill(m3, drop, -inf)
o3 = sdpa(transpose(q3x, 1, 2), transpose(k3x, 1, 2), transpose(v3x, 1, 2), m3i)

output o1, o2, o3
