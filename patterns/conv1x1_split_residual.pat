# A 1x1 conv whose output splits into a scaled residual and a skip half
# (the tail of WaveNet's gated-tanh unit once the gate runs as a kernel of
# its own: the unfused plan of gated_tanh_residual).  The GEMM's epilogue
# adds bias, residual and scale and stores the two halves, so the conv's
# full output never goes through memory.  Layout is channel-first [B, C, T].
pattern conv1x1_split_residual
template gemm
dim B, C, CI, T
dtype DT
param scale

input  x : DT[B, C, T]               # the layer's input (residual path)
input  z : DT[B, CI, T]              # the gated activations
weight w : DT[2*C, CI, 1]
weight b : DT[2*C]

o          = conv1d(z, w, b, kernel=1)
res, skip  = split(o, [C, C], axis=1)
out        = (x + res) * scale
output out, skip
