model layout
dim B = 2, C = 6, T = 4
dtype DT = f16
input  x : DT[B, C, T]
weight a : DT[C]
y = transpose(x, 1, 2)
z = reshape(y, [B, T * C])
u = unsqueeze(z, axis=0)
p, q = split(x, parts=2, axis=1)
w = concat([], axis=1)
r = prelu(w, a, axis=1)
output u, r
