# A linear layer whose output is split into value and gate halves, gated by
# an activation (LYNXNet/LYNXNet2's GLU with atan; also silu, softsign and
# sigmoid).  The epilogue pairs column n with column N+n, so the 2N-wide
# intermediate is never stored.
pattern gemm_glu
template gemm
dim B, M, K, N
dtype DT
op ACT = atan | silu | softsign | sigmoid

input  x : DT[B, M, K]
weight w : DT[2*N, K]
weight b : DT[2*N]

o, g = split(linear(x, w, b), [N, N], axis=-1)
out  = o * ACT(g)
output out
