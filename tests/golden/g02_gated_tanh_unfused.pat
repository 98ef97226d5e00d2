# Golden: gated-tanh residual units that must NOT fuse as gated_tanh_residual.
# Block 1: the output projection is a k=3 conv, not the pattern's kernel=1.
# Block 2: the interior value 'gate' escapes the match (q reads it).
# Block 3: sigmoid and tanh swapped between the halves (sigmoid(filt)).
# Block 4: the 1x1 conv has stride 2 (T = 2 lets its [B, C, 1] result
#          broadcast against x, so the model is valid; the pattern's conv
#          has stride 1).
# Blocks 2 and 3 keep a plain 1x1 conv after their gate, so their tails
# fuse as conv1x1_split_residual (the conv writes out2, skip2 and out3,
# skip3); blocks 1 and 4 do not (k=3, stride 2).  Their skip outputs are
# splits of the conv's result, so a kernel must write them: elementwise
# kernels around the fused tails write skip and out, skip4 and out4.
model gated_tanh_unfused
dim B = 2, C = 8, T = 2
dtype DT = f32

input  x  : DT[B, C, T]
input  y  : DT[B, 2*C, T]
weight w3 : DT[2*C, C, 3]
weight w  : DT[2*C, C, 1]
weight b  : DT[2*C]

gate, filt = split(y, [C, C], axis=1)
z          = sigmoid(gate) * tanh(filt)
o          = conv1d(z, w3, b, kernel=3, padding=1)
res, skip  = split(o, [C, C], axis=1)
out        = (x + res) * 0.5

gate2, filt2 = split(y, [C, C], axis=1)
z2           = sigmoid(gate2) * tanh(filt2)
o2           = conv1d(z2, w, b, kernel=1)
res2, skip2  = split(o2, [C, C], axis=1)
out2         = (out + res2) * 0.5
q            = gate2 * 2.0

gate3, filt3 = split(y, [C, C], axis=1)
z3           = sigmoid(filt3) * tanh(gate3)
o3           = conv1d(z3, w, b, kernel=1)
res3, skip3  = split(o3, [C, C], axis=1)
out3         = (out2 + res3) * 0.5

gate4, filt4 = split(y, [C, C], axis=1)
z4           = sigmoid(gate4) * tanh(filt4)
o4           = conv1d(z4, w, b, kernel=1, stride=2)
res4, skip4  = split(o4, [C, C], axis=1)
out4         = (out3 + res4) * 0.5
output out4, skip, skip2, skip3, skip4, q

# --- plan ---
# k0_split view -
# k1_elementwise elementwise elementwise
# k2_conv1d generic gemm
# k3_elementwise elementwise elementwise
# k4_split view -
# k5_elementwise elementwise elementwise
# k6_conv1x1_split_residual fused gemm
# k7_elementwise elementwise elementwise
# k8_split view -
# k9_elementwise elementwise elementwise
# k10_conv1x1_split_residual fused gemm
# k11_split view -
# k12_elementwise elementwise elementwise
# k13_conv1d generic gemm
# k14_elementwise elementwise elementwise
