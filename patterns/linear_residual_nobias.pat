# linear_residual without a bias: r + linear(x, w) (an attention block's
# output projection).
pattern linear_residual
template gemm
dim B, M, K, N
dtype DT

input  x : DT[B, M, K]
input  r : DT[B, M, N]
weight w : DT[N, K]

out = r + linear(x, w)
output out
