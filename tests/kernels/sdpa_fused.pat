# Kernel test: the fused sdpa pattern (patterns/sdpa.pat, no mask) in f32,
# f16 and bf16, head dims 24, 64 and 128.  q, k, v are transposed views of
# [B, L, H, D] tensors, as an encoder's projections are.  L and S are not
# multiples of any tile.
model sdpa_fused
dim B = 1, H = 2, L = 17, S = 33
dim D1 = 24, D2 = 64, D3 = 128

input q1x : f32[B, L, H, D1]
input k1x : f32[B, S, H, D1]
input v1x : f32[B, S, H, D1]
input q2x : f16[B, L, H, D2]
input k2x : f16[B, S, H, D2]
input v2x : f16[B, S, H, D2]
input q3x : bf16[B, L, H, D3]
input k3x : bf16[B, S, H, D3]
input v3x : bf16[B, S, H, D3]

q1 = transpose(q1x, 1, 2)
k1 = transpose(k1x, 1, 2)
v1 = transpose(v1x, 1, 2)
s1 = matmul(q1, transpose(k1, 2, 3)) * 0.20412414523193154     # 1/sqrt(24)
o1 = matmul(softmax(s1, axis=-1), v1)

q2 = transpose(q2x, 1, 2)
k2 = transpose(k2x, 1, 2)
v2 = transpose(v2x, 1, 2)
s2 = matmul(q2, transpose(k2, 2, 3)) * 0.125
o2 = matmul(softmax(s2, axis=-1), v2)

q3 = transpose(q3x, 1, 2)
k3 = transpose(k3x, 1, 2)
v3 = transpose(v3x, 1, 2)
s3 = matmul(q3, transpose(k3, 2, 3)) * 0.25                    # not 1/sqrt(D)
o3 = matmul(softmax(s3, axis=-1), v3)

output o1, o2, o3
