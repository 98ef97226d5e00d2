# gemm template: conv1x1_residual_gate (an unfused WaveNet gated unit's
# head: the condition's 1x1 conv, the dilated conv's output as residual,
# the gate), f32 with runs that are not 16-byte aligned (T = 37), and f16
# at tile multiples (the register epilogue's channel-first gate on sm_90)
model conv1x1_residual_gate
dim B = 2, CI = 20, C = 24, T = 37, CI2 = 48, C2 = 64, T2 = 128
dtype DT = f32

input  x  : DT[B, CI, T]
input  r  : DT[B, 2*C, T]
weight w  : DT[2*C, CI, 1]
weight b  : DT[2*C]
input  x2 : f16[B, CI2, T2]
input  r2 : f16[B, 2*C2, T2]
weight w2 : f16[2*C2, CI2, 1]
weight b2 : f16[2*C2]

y          = r + conv1d(x, w, b, kernel=1)
gate, filt = split(y, [C, C], axis=1)
out        = sigmoid(gate) * tanh(filt)

y2           = r2 + conv1d(x2, w2, b2, kernel=1)
gate2, filt2 = split(y2, [C2, C2], axis=1)
out2         = sigmoid(gate2) * tanh(filt2)
output out, out2
