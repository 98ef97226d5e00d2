# Golden: elementwise grouping.  A long chain of elementwise ops (exp, mul,
# add, tanh, sigmoid, sub, relu, leaky_relu, sqrt, abs), with a broadcast
# weight, then a diamond (a feeds both l and r, which meet in d): one
# generated elementwise kernel for all of it.
model elementwise
dim B = 2, C = 4, T = 8
dtype DT = f32

input  x : DT[B, C, T]
input  y : DT[B, C, T]
weight g : DT[C, 1]

h = exp(x)
h = h * 0.5 + 1.0
h = tanh(h) - sigmoid(h)
h = relu(h) * y
h = leaky_relu(h, negative_slope=0.2)
a = sqrt(abs(h) + 1e-6)
l = a * 2.0
r = exp(a) * g
d = l + r
output d

# --- plan ---
# k0_elementwise elementwise elementwise
