# A LayerNorm over the channels of a channel-last [B, T, C] tensor, read as
# [B, C, T] by a depthwise conv1d whose result goes back to channel-last:
# the LYNXNet2 block's first half (examples/lynxnet2_block.pat).  Unfused,
# the LayerNorm writes its [B, T, C] result and the conv reads it back
# (100 MB each way at LYNXNet2's dims); fused, the input is read once and
# the conv's result written once.  Each row's statistics need all C
# channels while a conv block holds a few of them, so the fused kernel's
# blocks share their rows' partial statistics (templates/dwconv.lua).
# Optional: the fallback paths re-read every row's channels, and the tuner
# keeps the unfused plan where the fused kernel loses.
pattern ln_dwconv
template dwconv
optional
dim B, T, C, KS
dtype DT
param pad, eps

input  x     : DT[B, T, C]
weight gamma : DT[C]
weight beta  : DT[C]
weight w     : DT[C, 1, KS]
weight bc    : DT[C]

h   = transpose(layernorm(x, gamma, beta, axis=-1, eps=eps), 1, 2)
out = transpose(conv1d(h, w, bc, kernel=KS, padding=pad, groups=C), 1, 2)
output out
