# copies on the copy template: reshapes of transposed views.
model copy_reshape
dim B = 3, C = 17, T = 33

input x : f32[B, C, T]
input h : f16[B, 1001, 5]
input g : bf16[1, 17, 257]
input e : i32[B, 4, 6, 5]

xt = transpose(x, 1, 2)
xr = reshape(xt, [B, T * C])
ht = transpose(h, 1, 2)
hr = reshape(ht, [B * 5, 1001])
gt = transpose(g, 1, 2)
gr = reshape(gt, [257 * 17])
et = transpose(e, 1, 3)
er = reshape(et, [B, 5 * 6, 4])
output xr, hr, gr, er
