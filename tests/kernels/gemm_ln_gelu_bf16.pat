# gemm template: ln_gemm_gelu in bf16, the ConvNeXt layout (channel-first input)
model gemm_ln_gelu_bf16
dim B = 2, C = 32, F = 128, T = 33
dtype DT = bf16

input  x  : DT[B, C, T]
weight g  : DT[C]
weight be : DT[C]
weight w  : DT[F, C]
weight b  : DT[F]

h   = transpose(x, 1, 2)
out = gelu(linear(layernorm(h, g, be, axis=-1, eps=1e-6), w, b), approximate="none")
output out
