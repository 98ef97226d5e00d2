# Scaled dot-product attention with a key-padding mask: mask[b, j] is true on
# padding keys, which get -inf before the softmax.  The fused kernel reads the
# [B, S] mask directly instead of a broadcast [B, 1, 1, S] tensor.  A query
# row whose keys are all padding gives NaN, as PyTorch does.
pattern sdpa
template sdpa
dim B, H, L, S, D, E
dtype DT
param scale

input q    : DT[B, H, L, D]
input k    : DT[B, H, S, D]
input v    : DT[B, H, S, E]
input mask : bool[B, S]

s   = matmul(q, transpose(k, 2, 3)) * scale
s   = masked_fill(s, reshape(mask, [B, 1, 1, S]), -inf)
out = matmul(softmax(s, axis=-1), v)
output out
