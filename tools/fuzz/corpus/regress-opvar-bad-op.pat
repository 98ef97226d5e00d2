pattern gemm_glu
template gemm
dim M, K, N
dtype DT
param S
op ACT = aTan | silu | softsign | sigmoid
input  x : DT[M, K]
weight w : DT[2*N, K]
weight b : DT[2*N]
h    = linear(x, w, b)
o, g = split(h, [N, N], axis=-1)
out  = o * ACT(c) * S
output out
