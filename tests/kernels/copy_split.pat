# copies on the copy template: reshapes of split halves (offset views),
# unit-size axes, a transposed split, bool.
model copy_split
dim B = 3, C = 17

input x : f16[B, 2 * C]
input y : bool[B, 6, 1, 10]
input z : f32[B, 257, 4]
input w : bf16[1, 5, 1, 3]

a, b = split(x, [C, C], axis=1)
ar   = reshape(b, [B * C])
yt   = transpose(y, 1, 3)
p, q = split(yt, [3, 7], axis=1)
qr   = reshape(q, [B, 42])
zt   = transpose(z, 1, 2)
z0, z1 = split(zt, parts=2, axis=1)
zr   = reshape(z1, [B, 514])
wt   = transpose(w, 1, 3)
wr   = unsqueeze(wt, 0)
wr2  = reshape(wr, [15])
output ar, qr, zr, wr2
