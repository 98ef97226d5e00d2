# gemm template: batched matmul, broadcast batch axes, transposed operands
model gemm_matmul
dim B = 2, H = 3, M = 17, K = 33, N = 19
dtype DT = f32

input a  : DT[B, H, M, K]
input b  : DT[B, H, K, N]
input b3 : DT[H, K, N]
input b1 : DT[B, 1, K, N]
input bt : DT[B, H, N, K]
input c2 : DT[K, N]

y1 = matmul(a, b)                      # batched
y2 = matmul(a, b3)                     # broadcast over B
y3 = matmul(a, b1)                     # broadcast over H
y4 = matmul(a, transpose(bt, 2, 3))    # k-contiguous B (q k^T)
y5 = matmul(a, c2)                     # 2-D B under a 4-D A
output y1, y2, y3, y4, y5
