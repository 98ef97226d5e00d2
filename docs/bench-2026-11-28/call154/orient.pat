# call 154: the same 1x1 conv GEMM (M = 49152, N = 1024, K = 512) with its
# output row-major (as a linear) and channel-first (as WaveNet's convs),
# with and without a residual: what does the channel-first orientation cost?
model orient
dim B = 32, C = 512, T = 1536
dtype DT = f16

input  xr : DT[B, T, C]
input  rr : DT[B, T, 2 * C]
input  z  : DT[B, C, T]
input  rc : DT[B, 2 * C, T]
weight w  : DT[2 * C, C]
weight w2 : DT[2 * C, C]
weight w3 : DT[2 * C, C, 1]
weight w4 : DT[2 * C, C, 1]
weight b  : DT[2 * C]

lin   = linear(xr, w, b)
linr  = rr + linear(xr, w2, b)
cf    = conv1d(z, w3, b, kernel=1)
cfr   = rc + conv1d(z, w4, b, kernel=1)
output lin, linr, cf, cfr
