# Scaled dot-product attention without a mask: softmax(q k^T scale) v,
# computed flash-style with an online softmax, never storing the scores.
pattern sdpa
template sdpa
dim B, H, L, S, D, E
dtype DT
param scale

input q : DT[B, H, L, D]
input k : DT[B, H, S, D]
input v : DT[B, H, S, E]

s   = matmul(q, transpose(k, 2, 3)) * scale
out = matmul(softmax(s, axis=-1), v)
output out
