# Kernel test: the sdpa op with causal=true (key j masked for query i when
# j > i, top-left aligned), default scale 1/sqrt(D) except where given; f32
# head dim 64, f16 head dim 128, bf16 head dim 24 with a value dim of 40.
# L = 17 queries over S = 33 keys, and L = 33 over S = 17 (rows past the
# last key still see keys 0..16).  q, k, v are transposed views.
model sdpa_causal
dim B = 1, H = 2, L = 17, S = 33
dim D1 = 64, D2 = 128, D3 = 24, E3 = 40

input q1x : f32[B, L, H, D1]
input k1x : f32[B, S, H, D1]
input v1x : f32[B, S, H, D1]
input q2x : f16[B, S, H, D2]
input k2x : f16[B, L, H, D2]
input v2x : f16[B, L, H, D2]
input q3x : bf16[B, L, H, D3]
input k3x : bf16[B, S, H, D3]
input v3x : bf16[B, S, H, E3]

o1 = sdpa(transpose(q1x, 1, 2), transpose(k1x, 1, 2), transpose(v1x, 1, 2), causal=true)
o2 = sdpa(transpose(q2x, 1, 2), transpose(k2x, 1, 2), transpose(v2x, 1, 2), causal=true)
o3 = sdpa(transpose(q3x, 1, 2), transpose(k3x, 1, 2), transpose(v3x, 1, 2), scale=0.3, causal=true)

output o1, o2, o3
