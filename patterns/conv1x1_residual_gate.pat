# WaveNet's condition projection added to the dilated conv's output and
# gated at once: sigmoid(gate) * tanh(filt) of the sum's two halves (the
# gated unit's head, once gated_tanh_residual runs unfused).  The GEMM's B
# rows pair each gate channel with its filter channel, as gemm_glu's halves
# are paired, and the epilogue adds the residual to both values and stores
# the gated product: neither the sum nor the gate's own kernel goes through
# memory.  Layout is channel-first [B, C, T].
pattern conv1x1_residual_gate
template gemm
dim B, CI, C, T
dtype DT

input  x : DT[B, CI, T]              # the condition
input  r : DT[B, 2*C, T]             # the dilated conv's output
weight w : DT[2*C, CI, 1]
weight b : DT[2*C]

y          = r + conv1d(x, w, b, kernel=1)
gate, filt = split(y, [C, C], axis=1)
out        = sigmoid(gate) * tanh(filt)
output out
