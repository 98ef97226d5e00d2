model reduce
dim N = 3, C = 5
input x : f32[N, C]
input m : i32[N, C]
s  = sum(x, axis=1, keepdim=true)
mu = mean(x, axis=-1)
mx = max(x, 1)
r  = rmsnorm(x - s, axis=-1, eps=1e-6)
c  = cast(m, f32) + exp(log(abs(x) + 1)) + sqrt(rsqrt(x * x + 1))
e  = maximum(minimum(relu(x), 6), leaky_relu(x, negative_slope=0.2))
p  = pow(erf(neg(x)), 2) + dropout(x, p=0.1)
output mu, mx, r, c, e, p
