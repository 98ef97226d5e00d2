# gemm template: gated_tanh_residual in bf16 at tile multiples (C = 64, T = 128)
model gemm_gated_bf16
dim B = 2, C = 64, T = 128
dtype DT = bf16

input  x  : DT[B, C, T]
input  y  : DT[B, 2*C, T]
weight w  : DT[2*C, C, 1]
weight b  : DT[2*C]

gate, filt = split(y, [C, C], axis=1)
z          = sigmoid(gate) * tanh(filt)
o          = conv1d(z, w, b, kernel=1)
res, skip  = split(o, [C, C], axis=1)
out        = (x + res) * 0.5
output out, skip
