# Kernel test: the fused sdpa_keypad pattern (patterns/sdpa_keypad.pat): a
# bool key-padding mask [B, S], TRUE on padding keys, which get -inf.
#  - f16, head dim 192, q, k, v split from one [B, T, 3*H*D] projection and
#    seen as [B, H, T, D] (the encoder layer's layout: strided views with
#    offsets), T = 29;
#  - f32, head dim 8, and bf16, head dim 64, with L = 17 queries over S = 33
#    keys from separate [B, L, H, D] tensors.
model sdpa_keypad
dim B = 2, H = 2, T = 29, L = 17, S = 33
dim D1 = 192, D2 = 8, D3 = 64

input x    : f16[B, T, 3*H*D1]
input padt : bool[B, T]
input q2x  : f32[B, L, H, D2]
input k2x  : f32[B, S, H, D2]
input v2x  : f32[B, S, H, D2]
input q3x  : bf16[B, L, H, D3]
input k3x  : bf16[B, S, H, D3]
input v3x  : bf16[B, S, H, D3]
input pad  : bool[B, S]

q1, k1, v1 = split(x, [H*D1, H*D1, H*D1], axis=-1)
q1 = transpose(reshape(q1, [B, T, H, D1]), 1, 2)
k1 = transpose(reshape(k1, [B, T, H, D1]), 1, 2)
v1 = transpose(reshape(v1, [B, T, H, D1]), 1, 2)
s1 = matmul(q1, transpose(k1, 2, 3)) * 0.07216878364870323      # 1/sqrt(192)
s1 = masked_fill(s1, reshape(padt, [B, 1, 1, T]), -inf)
o1 = matmul(softmax(s1, axis=-1), v1)

q2 = transpose(q2x, 1, 2)
k2 = transpose(k2x, 1, 2)
v2 = transpose(v2x, 1, 2)
s2 = matmul(q2, transpose(k2, 2, 3)) * 0.35355339059327373      # 1/sqrt(8)
s2 = masked_fill(s2, reshape(pad, [B, 1, 1, S]), -inf)
o2 = matmul(softmax(s2, axis=-1), v2)

q3 = transpose(q3x, 1, 2)
k3 = transpose(k3x, 1, 2)
v3 = transpose(v3x, 1, 2)
s3 = matmul(q3, transpose(k3, 2, 3)) * 0.125
s3 = masked_fill(s3, reshape(pad, [B, 1, 1, S]), -inf)
o3 = matmul(softmax(s3, axis=-1), v3)

output o1, o2, o3
