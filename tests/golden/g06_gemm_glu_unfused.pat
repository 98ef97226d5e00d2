# Golden: GLU-like blocks that must NOT fuse.
# Block 1: the activation is applied to the first half, not the gate half.
# Block 2: tanh is not in the pattern's activation set.
# Block 3: the split does not halve the linear's output ([N, 1] of N+1
#          columns; the one-column gate broadcasts).
# Block 4: the split is along axis 1, the rows (M = 2N makes that valid).
model gemm_glu_unfused
dim B = 2, M = 12, K = 8, N = 6
dtype DT = f32

input  x  : DT[B, M, K]
weight w  : DT[2*N, K]
weight b  : DT[2*N]
weight w3 : DT[N+1, K]
weight b3 : DT[N+1]

o1, g1 = split(linear(x, w, b), [N, N], axis=-1)
y1     = atan(o1) * g1
o2, g2 = split(linear(x, w, b), [N, N], axis=-1)
y2     = o2 * tanh(g2)
o3, g3 = split(linear(x, w3, b3), [N, 1], axis=-1)
y3     = o3 * atan(g3)
o4, g4 = split(linear(x, w, b), [N, N], axis=1)
y4     = o4 * atan(g4)
output y1, y2, y3, y4

# --- plan ---
# k0_linear generic gemm
# k1_split view -
# k2_elementwise elementwise elementwise
# k3_linear generic gemm
# k4_split view -
# k5_elementwise elementwise elementwise
# k6_linear generic gemm
# k7_split view -
# k8_elementwise elementwise elementwise
# k9_linear generic gemm
# k10_split view -
# k11_elementwise elementwise elementwise
