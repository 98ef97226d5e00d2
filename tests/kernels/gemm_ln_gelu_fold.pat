# gemm template: ln_gemm_gelu whose x is contiguous along K, so that
# ln=fold applies (on sm_90 also under sched=pp with B's panel scaled once):
# M not a multiple of any row tile, K not of 64, N a multiple of 8 but not
# of a column tile (y1), N2 a multiple of 8 column tiles of 64 so that a
# cluster of LNC blocks may share the row statistics (y2); f16 and bf16
model gemm_ln_gelu_fold
dim B = 3, T = 233, K = 200, N = 136, K2 = 96, N2 = 512

input  x  : f16[B, T, K]
weight g  : f16[K]
weight be : f16[K]
weight w  : f16[N, K]
weight b  : f16[N]
input  x2 : bf16[B, T, K2]
weight g2 : bf16[K2]
weight b2 : bf16[K2]
weight w2 : bf16[N2, K2]
weight c2 : bf16[N2]

y1 = gelu(linear(layernorm(x, g, be, axis=-1, eps=1e-5), w, b), approximate="none")
y2 = gelu(linear(layernorm(x2, g2, b2, axis=-1, eps=1e-6), w2, c2), approximate="tanh")
output y1, y2
