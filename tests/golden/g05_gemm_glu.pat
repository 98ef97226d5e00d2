# Golden: linear -> split -> out * act(gate) fuses for each activation of
# the pattern's set (atan, silu, softsign, sigmoid), and with the product's
# operands commuted (block 5: atan(g) * o, mul is commutative).
model gemm_glu
dim B = 2, M = 4, K = 8, N = 6
dtype DT = f32

input  x : DT[B, M, K]
weight w : DT[2*N, K]
weight b : DT[2*N]

o1, g1 = split(linear(x, w, b), [N, N], axis=-1)
y1     = o1 * atan(g1)
o2, g2 = split(linear(x, w, b), [N, N], axis=-1)
y2     = o2 * silu(g2)
o3, g3 = split(linear(x, w, b), [N, N], axis=-1)
y3     = o3 * softsign(g3)
o4, g4 = split(linear(x, w, b), [N, N], axis=-1)
y4     = o4 * sigmoid(g4)
o5, g5 = split(linear(x, w, b), [N, N], axis=-1)
y5     = atan(g5) * o5
output y1, y2, y3, y4, y5

# --- plan ---
# k0_gemm_glu fused gemm
# k1_gemm_glu fused gemm
# k2_gemm_glu fused gemm
# k3_gemm_glu fused gemm
# k4_gemm_glu fused gemm
