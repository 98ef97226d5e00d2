# A depthwise conv1d over [B, C, T], its result read channel-last and
# normalised over the channels: the ConvNeXt block's first half
# (examples/convnext_block.pat).  One kernel computes a tile of time steps
# for every channel and normalises each step in shared memory, so the
# conv's result is never stored: the input is read once and the
# normalised [B, T, C] written once, where the unfused plan writes and
# reads the conv's result as well (and reads it across its rows).
# The file's stem sorts after ln_gemm_gelu, which has as many ops: where a
# LayerNorm could join either, ln_gemm_gelu claims it first, and this
# pattern takes it in the plan that leaves ln_gemm_gelu unfused
# (docs/patterns.md: the matcher's order).
pattern dwconv_ln
template dwconv_ln
optional
dim B, C, T, KS
dtype DT
param pad, eps

input  x     : DT[B, C, T]
weight w     : DT[C, 1, KS]
weight bc    : DT[C]
weight gamma : DT[C]
weight beta  : DT[C]

h   = transpose(conv1d(x, w, bc, kernel=KS, padding=pad, groups=C), 1, 2)
out = layernorm(h, gamma, beta, axis=-1, eps=eps)
output out
