# Elementwise kernels on odd sizes and every dtype: broadcasting from every
# side, a scalar, casts, prelu, pow, maximum with NaN-free inputs, a long
# chain, and outputs of two different shapes from one kernel.
model elementwise_shapes
dim B = 3, T = 1001, C = 17
input x  : f32[B, T, C]
input h  : f16[B, 1, C]
input g  : bf16[T, 1]
input k  : bool[B, T, 1]
input n  : i32[C]
weight a : f32[C]
y1 = exp(x * 0.25) - cast(h, f32) + cast(g, f32)
y2 = prelu(tanh(y1), a, axis=2) * (1.0 - cast(k, f32))
y3 = maximum(y2, cast(n, f32) * 0.1) + pow(sigmoid(x), 2.0)
y4 = cast(silu(y3) + erf(x) + atan(x) + softsign(x) + leaky_relu(x, 0.1), f16)
y5 = sum(y1, axis=2, keepdim=true)
y6 = gelu(y5 + 1, approximate="tanh") * 2
y7 = cast(y4, bf16)
output y4, y6, y7
