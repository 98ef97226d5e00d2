# gemm template: gated_tanh_residual (WaveNet), small and odd sizes
model gemm_gated
dim B = 2, C = 16, T = 37
dtype DT = f32

input  x  : DT[B, C, T]
input  y  : DT[B, 2*C, T]
weight w  : DT[2*C, C, 1]
weight b  : DT[2*C]

gate, filt = split(y, [C, C], axis=1)
z          = sigmoid(gate) * tanh(filt)
o          = conv1d(z, w, b, kernel=1)
res, skip  = split(o, [C, C], axis=1)
out        = (x + res) * 0.7071067811865476
output out, skip
