# WaveNet's dilated conv and the condition's 1x1 conv summed, then gated:
# sigmoid(gate) * tanh(filt) of the sum's two halves (the gated unit's head
# where gated_tanh_residual runs unfused).  One GEMM: K runs over the
# dilated conv's (tap, channel) and then the condition's channels, so the
# sum is the accumulators and y never goes through memory; B's rows pair
# each gate channel with its filter channel (as gemm_glu's halves) and the
# epilogue gates them.  The dilated conv's weight is a pattern input: the
# planner relays it tap-major first (compiler/layout.c).  16-bit only (f16
# here, bf16 in conv_cond_gate_bf16.pat): at f32 the dilated conv has no
# TMA path, and its own kernel's loaders beat the fold's generic ones.
# The dilated conv's input channels and T are multiples of 64 (64*CQ,
# 64*TQ), as its TMA boxes need; elsewhere the two convs stay apart.
pattern conv_cond_gate
template gemm
dim B, C, CQ, H, TQ, KS, DIL, PAD

input  x  : f16[B, 64*CQ, 64*TQ]
input  w  : f16[2*C, 64*CQ, KS]
weight b  : f16[2*C]
input  c  : f16[B, H, 64*TQ]
weight wc : f16[2*C, H, 1]
weight bc : f16[2*C]

y          = conv1d(x, w, b, kernel=KS, dilation=DIL, padding=PAD) + conv1d(c, wc, bc, kernel=1)
gate, filt = split(y, [C, C], axis=1)
out        = sigmoid(gate) * tanh(filt)
output out
