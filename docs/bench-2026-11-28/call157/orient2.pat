# call 157: ConvNeXt's second linear (M = 49152, N = 512, K = 2048) with its
# output row-major and channel-first, with the layer scale and residual and
# plain, and as W · h[b]^T (M = C, N = T a batch entry), whose output lies
# channel-first along its rows: what does the orientation cost at K = 2048?
model orient2
dim B = 64, C = 512, F = 2048, T = 768
dtype DT = f16

input  h  : DT[B, T, F]
input  rl : DT[B, T, C]
input  rc : DT[B, C, T]
weight w  : DT[C, F]
weight w2 : DT[C, F]
weight w3 : DT[C, F]
weight w4 : DT[C, F]
weight b  : DT[C]
weight g  : DT[C]

cl  = rl + linear(h, w, b) * g
cf  = rc + transpose(linear(h, w2, b) * g, 1, 2)
pl  = linear(h, w4)
sw  = matmul(w3, transpose(h, 1, 2))
output cl, cf, pl, sw
