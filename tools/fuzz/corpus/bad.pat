model bad
dim N = 0
input x : f32[N, N]
y = matmull(x, x)
z = undefined + 1
output y, w
