# Golden: a depthwise conv1d read channel-last and normalised over its
# channels (pattern dwconv_ln, patterns/ln_of_dwconv.pat).
# Block 1: conv -> transpose -> LayerNorm: one dwconv_ln kernel.
# Block 2: the same, then linear -> GELU: ln_gemm_gelu has as many ops and
#          sorts first, so it claims the LayerNorm; the conv stays dwconv.
# Block 3: stride 2 is not the pattern's conv (stride 1 only): a dwconv
#          kernel, then a LayerNorm kernel.
# Block 4: the conv's result is also a model output, so it cannot stay
#          inside a kernel: no fusion.
# Block 5: a conv that does not write `kernel=` has its weight's K, so it
#          matches the pattern's kernel=KS: one dwconv_ln kernel.
model dwconv_ln_golden
dim B = 2, C = 8, T = 12, N = 16
dtype DT = f32

input  x  : DT[B, C, T]
weight w  : DT[C, 1, 3]
weight bc : DT[C]
weight g  : DT[C]
weight e  : DT[C]
weight w1 : DT[N, C]
weight b1 : DT[N]

o1 = layernorm(transpose(conv1d(x, w, bc, kernel=3, padding=1, groups=C), 1, 2), g, e, axis=-1)
h2 = layernorm(transpose(conv1d(x, w, bc, kernel=3, padding=1, groups=C), 1, 2), g, e, axis=-1)
o2 = gelu(linear(h2, w1, b1))
o3 = layernorm(transpose(conv1d(x, w, bc, kernel=3, padding=1, stride=2, groups=C), 1, 2), g, e, axis=-1)
c4 = conv1d(x, w, bc, kernel=3, padding=1, groups=C)
o4 = layernorm(transpose(c4, 1, 2), g, e, axis=-1)
o5 = layernorm(transpose(conv1d(x, w, bc, padding=1, groups=C), 1, 2), g, e, axis=-1)
output o1, o2, o3, o4, c4, o5

# --- plan ---
# k0_dwconv_ln fused dwconv_ln
# k1_conv1d generic dwconv
# k2_transpose view -
# k3_ln_gemm_gelu fused gemm
# k4_conv1d generic dwconv
# k5_transpose view -
# k6_layernorm generic rownorm
# k7_conv1d generic dwconv
# k8_transpose view -
# k9_layernorm generic rownorm
# k10_dwconv_ln fused dwconv_ln
