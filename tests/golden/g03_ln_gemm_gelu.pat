# Golden: LayerNorm -> linear -> GELU fuses, with exact GELU (block 1) and
# the tanh approximation (block 2, also leaving layernorm's axis at its
# default -1 and using another eps).
model ln_gemm_gelu
dim B = 2, M = 4, K = 8, N = 16
dtype DT = f32

input  x     : DT[B, M, K]
weight gamma : DT[K]
weight beta  : DT[K]
weight w     : DT[N, K]
weight b     : DT[N]

h  = layernorm(x, gamma, beta, axis=-1, eps=1e-5)
o1 = gelu(linear(h, w, b), approximate="none")
h2 = layernorm(x, gamma, beta, eps=1e-6)
o2 = gelu(linear(h2, w, b), approximate="tanh")
output o1, o2

# --- plan ---
# k0_ln_gemm_gelu fused gemm
# k1_ln_gemm_gelu fused gemm
