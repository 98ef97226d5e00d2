# A linear layer whose output is added to a residual: r + linear(x, w, b),
# the end of most transformer and LYNXNet2 blocks.  The GEMM's epilogue
# reads the residual and stores the sum, so the linear's output is never
# stored and read back.  linear_residual_nobias.pat is the same without b.
pattern linear_residual
template gemm
dim B, M, K, N
dtype DT

input  x : DT[B, M, K]
input  r : DT[B, M, N]
weight w : DT[N, K]
weight b : DT[N]

out = r + linear(x, w, b)
output out
