model gelu64
dim B = 1, M = 49152, K = 64, N = 2048
input  x : f16[B, M, K]
weight w : f16[N, K]
weight b : f16[N]
y = gelu(linear(x, w, b), approximate="none")
output y
