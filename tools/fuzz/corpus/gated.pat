model gated
dim B = 2, C = 4, T = 8
dtype DT = f16
input  y  : DT[B, 2*C, T]
input  x  : DT[B, C, T]
weight wo : DT[2*C, C, 1]
weight bo : DT[2*C]
gate, filt = split(y, [C, C], axis=1)
z          = sigmoid(gate) * tanh(filt)
o          = conv1d(z, wo, bo, kernel=1)
res, skip  = split(o, [C, C], axis=1)
out        = (x + res) * 0.7071067811865476
output out, skip
