# Residual GEMMs whose residual a ws producer can copy through its stage
# ring by TMA (gemm's load=tmares): a linear with a row-major residual and a
# 1x1 conv with a channel-first one, each row tile within one batch entry,
# K over three K tiles.
model gemm_residual_tma
dim B = 2, T = 128, C = 192, N = 128
dtype DT = f16

input  x  : DT[B, T, C]
input  r  : DT[B, T, N]
input  z  : DT[B, C, T]
input  rc : DT[B, N, T]
weight w  : DT[N, C]
weight b  : DT[N]
weight w2 : DT[N, C, 1]
weight b2 : DT[N]

lin = r + linear(x, w, b)
cf  = rc + conv1d(z, w2, b2, kernel=1)
output lin, cf
