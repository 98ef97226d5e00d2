# Golden: LayerNorm -> linear -> activation chains that must NOT fuse.
# Block 1: the GELU input u escapes (it is added after the GELU).
# Block 2: relu is not GELU.
# Block 3: a linear without bias is not the pattern's linear(h, w, b).
# Block 4: the LayerNorm is over axis 1, not the last axis (M = K makes
#          that valid); its linear and GELU still fuse as gemm_gelu.
model ln_gemm_gelu_unfused
dim B = 2, M = 8, K = 8, N = 16
dtype DT = f32

input  x     : DT[B, M, K]
weight gamma : DT[K]
weight beta  : DT[K]
weight w     : DT[N, K]
weight b     : DT[N]

h1 = layernorm(x, gamma, beta, axis=-1, eps=1e-5)
u  = linear(h1, w, b)
o1 = gelu(u) + u
h2 = layernorm(x, gamma, beta, axis=-1, eps=1e-5)
o2 = relu(linear(h2, w, b))
h3 = layernorm(x, gamma, beta, axis=-1, eps=1e-5)
o3 = gelu(linear(h3, w))
h4 = layernorm(x, gamma, beta, axis=1, eps=1e-5)
o4 = gelu(linear(h4, w, b))
output o1, o2, o3, o4

# --- plan ---
# k0_layernorm generic rownorm
# k1_linear generic gemm
# k2_elementwise elementwise elementwise
# k3_layernorm generic rownorm
# k4_linear generic gemm
# k5_elementwise elementwise elementwise
# k6_layernorm generic rownorm
# k7_linear generic gemm
# k8_elementwise elementwise elementwise
# k9_layernorm generic rownorm
# k10_gemm_gelu fused gemm
