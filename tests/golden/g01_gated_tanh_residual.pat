# Golden: the WaveNet gated-tanh residual unit fuses into one gemm kernel,
# written as in the pattern (block 1) and with every commutative operand
# swapped (block 2: tanh(filt) * sigmoid(gate), 0.5 * (res + x)), and with
# a 1x1 conv that does not write kernel=1 (block 3: its weight's K is 1).
model gated_tanh_residual
dim B = 2, C = 8, T = 16
dtype DT = f32

input  x  : DT[B, C, T]
input  y  : DT[B, 2*C, T]
weight w  : DT[2*C, C, 1]
weight b  : DT[2*C]
weight w2 : DT[2*C, C, 1]
weight b2 : DT[2*C]

gate, filt = split(y, [C, C], axis=1)
z          = sigmoid(gate) * tanh(filt)
o          = conv1d(z, w, b, kernel=1)
res, skip  = split(o, [C, C], axis=1)
out        = (x + res) * 0.7071067811865476

gate2, filt2 = split(y, [C, C], axis=1)
z2           = tanh(filt2) * sigmoid(gate2)
o2           = conv1d(z2, w2, b2, kernel=1)
res2, skip2  = split(o2, [C, C], axis=1)
out2         = 0.7071067811865476 * (res2 + out)

gate3, filt3 = split(y, [C, C], axis=1)
z3           = sigmoid(gate3) * tanh(filt3)
o3           = conv1d(z3, w, b)
res3, skip3  = split(o3, [C, C], axis=1)
out3         = (out2 + res3) * 0.7071067811865476
output out3, skip, skip2, skip3

# --- plan ---
# k0_gated_tanh_residual fused gemm
# k1_gated_tanh_residual fused gemm
# k2_gated_tanh_residual fused gemm
