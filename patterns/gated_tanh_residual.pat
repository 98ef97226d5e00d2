# WaveNet gated-tanh residual unit (DiffSinger's diffusion decoder):
# split the dilated-conv output into gate and filter halves, gate them,
# project with a 1x1 conv, split into residual and skip, and add the residual
# with a scale.  The GEMM's A-operand loader applies the gate (prologue) and
# its epilogue adds bias, residual and scale and stores the two halves.
# Layout is channel-first [B, C, T]; operands are read through strides.
# Optional: kgen tune also measures the layer with this match left unfused
# (the gate as an elementwise kernel, then conv1x1_split_residual: the 1x1
# conv whose epilogue writes the scaled residual and the skip half), and
# kgen build keeps whichever is faster: the gate in the GEMM's A loader is
# recomputed for every column tile, and costs the K loop more than the
# gate's own memory-bound kernel.
pattern gated_tanh_residual
template gemm
optional
dim B, C, T
dtype DT
param scale

input  x : DT[B, C, T]               # the layer's input (residual path)
input  y : DT[B, 2*C, T]             # dilated conv + condition, pre-activation
weight w : DT[2*C, C, 1]             # 1x1 output projection
weight b : DT[2*C]

gate, filt = split(y, [C, C], axis=1)
z          = sigmoid(gate) * tanh(filt)
o          = conv1d(z, w, b, kernel=1)
res, skip  = split(o, [C, C], axis=1)
out        = (x + res) * scale
output out, skip
