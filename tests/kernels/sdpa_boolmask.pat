# Kernel test: the sdpa op with a bool attn_mask, TRUE where the key takes
# part (PyTorch's convention), broadcast to [B, H, L, S]:
#  - f32, head dim 192, mask [L, S] (shared by every batch and head);
#  - f16, head dim 8, mask [B, H, L, S], together with causal=true;
#  - bf16, head dim 128, mask [B, 1, 1, S] (a key mask through the op).
# Random bool inputs are true with probability 0.2, so most keys are masked
# and a few rows may have no key at all (NaN, as in the reference).
model sdpa_boolmask
dim B = 1, H = 2, L = 17, S = 33
dim D1 = 192, D2 = 8, D3 = 128

input q1x : f32[B, L, H, D1]
input k1x : f32[B, S, H, D1]
input v1x : f32[B, S, H, D1]
input m1  : bool[L, S]
input q2x : f16[B, L, H, D2]
input k2x : f16[B, S, H, D2]
input v2x : f16[B, S, H, D2]
input m2  : bool[B, H, L, S]
input q3x : bf16[B, L, H, D3]
input k3x : bf16[B, S, H, D3]
input v3x : bf16[B, S, H, D3]
input m3  : bool[B, 1, 1, S]

o1 = sdpa(transpose(q1x, 1, 2), transpose(k1x, 1, 2), transpose(v1x, 1, 2), m1)
o2 = sdpa(transpose(q2x, 1, 2), transpose(k2x, 1, 2), transpose(v2x, 1, 2), m2, causal=true)
o3 = sdpa(transpose(q3x, 1, 2), transpose(k3x, 1, 2), transpose(v3x, 1, 2), m3, scale=0.1)

output o1, o2, o3
