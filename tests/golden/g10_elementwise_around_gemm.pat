# Golden: elementwise ops on both sides of a GEMM.  a feeds the linear and
# the add after it, so joining the add to a's kernel would make a cycle
# (a's kernel -> linear -> a's kernel): the add starts a second elementwise
# kernel, which the sigmoid and the scale join.
model elementwise_around_gemm
dim M = 4, K = 8
dtype DT = f32

input  x : DT[M, K]
weight w : DT[K, K]

a = exp(x)
b = linear(a, w)
c = a + b
d = sigmoid(c) * 2.0
output d

# --- plan ---
# k0_elementwise elementwise elementwise
# k1_linear generic gemm
# k2_elementwise elementwise elementwise
