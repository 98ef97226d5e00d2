# linear_scale_residual whose residual and result are channel-first
# [B, N, T] while the linear runs channels-last: r + transpose(linear(x, w,
# b) * g, 1, 2), the end of a ConvNeXt block over [B, C, T].  The epilogue
# stores along T, the result's contiguous axis; nothing is transposed in
# memory.
pattern linear_scale_residual
template gemm
dim B, T, K, N
dtype DT

input  x : DT[B, T, K]
input  r : DT[B, N, T]
weight w : DT[N, K]
weight b : DT[N]
weight g : DT[N]

out = r + transpose(linear(x, w, b) * g, 1, 2)
output out
