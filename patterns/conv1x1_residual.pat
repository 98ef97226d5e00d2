# A 1x1 conv over a channel-first [B, C, T] tensor added to a residual of
# its output's shape: r + conv1d(x, w, b, kernel=1) (WaveNet's condition
# projection added to the dilated conv's output).  The GEMM's epilogue reads
# the residual and stores the sum.
pattern conv1x1_residual
template gemm
dim B, CI, CO, T
dtype DT

input  x : DT[B, CI, T]
input  r : DT[B, CO, T]
weight w : DT[CO, CI, 1]
weight b : DT[CO]

out = r + conv1d(x, w, b, kernel=1)
output out
