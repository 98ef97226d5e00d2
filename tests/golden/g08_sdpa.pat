# Golden: scaled dot-product attention fuses without a mask (block 1) and
# with a key-padding mask (block 2); also with transpose(k, 3, 2), softmax's
# default axis and the scale on the left (blocks 3 and 4).  A direct sdpa()
# call is one generic sdpa kernel (block 5).  A softmax over the query axis
# (block 6) is another computation and stays unfused, and so do a mask
# over queries instead of keys (block 7, L = S makes it valid) and a mask
# filling 0 instead of -inf (block 8).
model sdpa
dim B = 2, H = 2, L = 6, S = 6, D = 8
dtype DT = f32

input q    : DT[B, H, L, D]
input k    : DT[B, H, S, D]
input v    : DT[B, H, S, D]
input mask : bool[B, S]

s1 = matmul(q, transpose(k, 2, 3)) * 0.35355339059327373
a1 = matmul(softmax(s1, axis=-1), v)
s2 = matmul(q, transpose(k, 2, 3)) * 0.35355339059327373
s2 = masked_fill(s2, reshape(mask, [B, 1, 1, S]), -inf)
a2 = matmul(softmax(s2, axis=-1), v)
s3 = matmul(q, transpose(k, 3, 2)) * 0.35355339059327373
a3 = matmul(softmax(s3), v)
s4 = 0.35355339059327373 * matmul(q, transpose(k, -1, -2))
a4 = matmul(softmax(s4, axis=3), v)
a5 = sdpa(q, k, v, scale=0.5)
s6 = matmul(q, transpose(k, 2, 3)) * 0.35355339059327373
a6 = matmul(softmax(s6, axis=2), v)
s7 = matmul(q, transpose(k, 2, 3)) * 0.35355339059327373
s7 = masked_fill(s7, reshape(mask, [B, 1, S, 1]), -inf)
a7 = matmul(softmax(s7, axis=-1), v)
s8 = matmul(q, transpose(k, 2, 3)) * 0.35355339059327373
s8 = masked_fill(s8, reshape(mask, [B, 1, 1, S]), 0.0)
a8 = matmul(softmax(s8, axis=-1), v)
output a1, a2, a3, a4, a5, a6, a7, a8

# --- plan ---
# k0_sdpa fused sdpa
# k1_sdpa fused sdpa
# k2_sdpa fused sdpa
# k3_sdpa fused sdpa
# k4_sdpa generic sdpa
# k5_transpose view -
# k6_matmul generic gemm
# k7_elementwise elementwise elementwise
# k8_softmax generic rownorm
# k9_matmul generic gemm
# k10_transpose view -
# k11_matmul generic gemm
# k12_reshape view -
# k13_elementwise elementwise elementwise
# k14_softmax generic rownorm
# k15_matmul generic gemm
# k16_transpose view -
# k17_matmul generic gemm
# k18_reshape view -
# k19_elementwise elementwise elementwise
# k20_softmax generic rownorm
# k21_matmul generic gemm
