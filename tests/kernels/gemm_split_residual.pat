# gemm template: conv1x1_split_residual (the tail of an unfused WaveNet
# gated unit), f32 with runs that are not 16-byte aligned (T = 37), and
# f16 at tile multiples, where a 128-column tile spans both halves (C = 64)
model gemm_split_residual
dim B = 2, C = 24, CI = 20, T = 37, C2 = 64, CI2 = 48, T2 = 128
dtype DT = f32

input  x  : DT[B, C, T]
input  z  : DT[B, CI, T]
weight w  : DT[2*C, CI, 1]
weight b  : DT[2*C]
input  x2 : f16[B, C2, T2]
input  z2 : f16[B, CI2, T2]
weight w2 : f16[2*C2, CI2, 1]
weight b2 : f16[2*C2]

o          = conv1d(z, w, b, kernel=1)
res, skip  = split(o, [C, C], axis=1)
out        = (x + res) * 0.5

o2           = conv1d(z2, w2, b2, kernel=1)
res2, skip2  = split(o2, [C2, C2], axis=1)
out2         = (x2 + res2) * 0.7071067811865476
output out, skip, out2, skip2
