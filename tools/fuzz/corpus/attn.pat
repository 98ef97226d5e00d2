model attn
dim B = 1, H = 2, L = 4, D = 8
dtype DT = f16
input q   : DT[B, H, L, D]
input k   : DT[B, H, L, D]
input v   : DT[B, H, L, D]
input pad : bool[B, L]
s = matmul(q, transpose(k, 2, 3)) * 0.125
s = masked_fill(s, reshape(pad, [B, 1, 1, L]), -inf)
a = matmul(softmax(s, axis=-1), v)
o = sdpa(q, k, v, scale=0.125, causal=true)
output a, o
