# linear -> split -> out * act(gate)
model glu
dim B = 1, T = 3, C = 2
dtype DT = f32
input  x : DT[B, T, C]
weight w : DT[2*C, C]
weight b : DT[2*C]
o, g = split(linear(x, w, b), [C, C], axis=-1)
out  = o * atan(g) + o * silu(g) - softsign(g) / 2
output out
