# tools/bench: LayerNorm -> linear -> GELU (DESIGN.md section 9, rows 2 and
# 3: M=49152 K=256 N=1024 by default, and --dim M=8192 --dim K=4096
# --dim N=16384).
model ln_gemm_gelu
dim B = 1, M = 49152, K = 256, N = 1024
dtype DT = f16

input  x     : DT[B, M, K]
weight gamma : DT[K]
weight beta  : DT[K]
weight w     : DT[N, K]
weight b     : DT[N]

out = gelu(linear(layernorm(x, gamma, beta, axis=-1, eps=1e-5), w, b))
output out
