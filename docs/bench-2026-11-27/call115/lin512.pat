model lin512
dim M = 49152, K = 512, N = 2048
input  x : f16[M, K]
weight w : f16[N, K]
weight b : f16[N]
y = linear(x, w, b)
output y
