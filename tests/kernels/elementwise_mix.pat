model elementwise_mix
dim B = 3, C = 17, T = 5
dtype DT = f16
input x : DT[B, C, T]
input y : DT[B, T, C]
input m : bool[B, 1, T]
a = gelu(x * 0.5 + transpose(y, 1, 2), approximate="tanh")
b = masked_fill(a, m, -inf)
q1, q2 = split(x, [8, 9], axis=1)
c = concat([-q2, sigmoid(q1)], axis=1) * b
d = reshape(transpose(c, 1, 2), [B, T * C])
output d
