# A conv1d whose result is read channel-last (transposed back), scaled and
# passed through GELU: the conv FFN of FastSpeech-style encoder layers
# (examples/encoder_layer.pat).  The GEMM's epilogue applies the bias, the
# scale and GELU and stores [B, T, F] along F, so the conv's result is
# never stored before them.  x is the conv's [B, C, T] input, however it
# is laid out (the LayerNorm before it writes it channel-first for it).
pattern conv_gelu
template gemm
dim B, C, T, F, KS
dtype DT
param pad, scale, approximate

input  x : DT[B, C, T]
weight w : DT[F, C, KS]
weight b : DT[F]

h   = transpose(conv1d(x, w, b, kernel=KS, padding=pad), 1, 2)
out = gelu(h * scale, approximate=approximate)
output out
