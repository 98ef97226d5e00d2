# A linear layer scaled per output channel, then added to a residual:
# r + linear(x, w, b) * g (ConvNeXt's layer scale).  The GEMM's epilogue
# applies the bias and the scale, reads the residual and stores the sum.
# linear_scale_residual_t.pat is the channel-first form of the same block.
pattern linear_scale_residual
template gemm
dim B, T, K, N
dtype DT

input  x : DT[B, T, K]
input  r : DT[B, T, N]
weight w : DT[N, K]
weight b : DT[N]
weight g : DT[N]

out = r + linear(x, w, b) * g
output out
