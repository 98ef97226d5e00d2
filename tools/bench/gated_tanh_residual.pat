# tools/bench: the gated-tanh residual of a WaveNet layer on its own
# (DESIGN.md section 9, row 1): the pre-activation y and the residual x in,
# out and skip out.
model gated_tanh_residual
dim B = 32, C = 512, T = 1536
dtype DT = f16

input  x : DT[B, C, T]
input  y : DT[B, 2*C, T]
weight w : DT[2*C, C, 1]
weight b : DT[2*C]

gate, filt = split(y, [C, C], axis=1)
z          = sigmoid(gate) * tanh(filt)
o          = conv1d(z, w, b, kernel=1)
res, skip  = split(o, [C, C], axis=1)
out        = (x + res) * 0.7071067811865476
output out, skip
