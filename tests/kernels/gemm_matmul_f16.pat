# gemm template: f16 matmuls, 1-D operands and tile multiples
model gemm_matmul_f16
dim B = 2, M = 64, K = 32, N = 64
dtype DT = f16

input a  : DT[B, M, K]
input b  : DT[B, K, N]
input v  : DT[K]
input bt : DT[B, N, K]

y1 = matmul(a, b)
y2 = matmul(a, v)                      # matrix-vector: [B, M]
y3 = matmul(v, b)                      # vector-matrix: [B, N]
y4 = matmul(a, transpose(bt, 1, 2))
output y1, y2, y3, y4
