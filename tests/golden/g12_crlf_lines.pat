# Golden: a file with CRLF line ends plans like any other, and the source
# lines of every kernel (the --json 'lines' field) are counted right: a
# statement wrapped over three lines covers all three.
model crlf
dim B = 2, C = 8, T = 16
dtype DT = f32

input  x : DT[B, C, T]
input  y : DT[B, 2*C, T]
weight w : DT[2*C, C, 1]
weight b : DT[2*C]
weight g : DT[C]

gate, filt = split(y, [C, C], axis=1)
z          = sigmoid(gate) * tanh(filt)
o          = conv1d(z, w, b,
                    kernel=1)
res, skip  = split(o, [C, C], axis=1)
out        = (x + res) * 0.5
n          = layernorm(transpose(out, 1, 2), g, g,
                       axis=-1,
                       eps=1e-5)
m          = exp(n) + 1.0
output m, skip

# --- plan+lines ---
# k0_gated_tanh_residual fused gemm [14, 15, 16, 17, 18, 19]
# k1_transpose view - [20, 21, 22]
# k2_layernorm generic rownorm [20, 21, 22]
# k3_elementwise elementwise elementwise [23]
