# max on the reduce template, with NaN and -inf rows.
model reduce_max
dim B = 3

input a1    : f32[B, 1]
input a17   : bf16[B, 17]
input a127  : f16[B, 2, 127]
input a1001 : f32[B, 1001]
input t     : f32[B, 1001, 3]
input u     : f16[B, 257, 17]
input n     : i32[B, 33]
input q     : bool[B, 17, 4]
input z     : f32[B, 7, 64]
input zm    : bool[B, 7]      # rows of -inf
input zr    : bool[B, 7]      # rows with NaNs
input zn    : bool[B, 7, 64]

x1    = max(a1)
x17   = max(a17, keepdim=true)
x127  = max(a127)
x1001 = max(a1001)
xt    = max(t, axis=1)
ut    = transpose(u, 1, 2)
xu    = max(ut, axis=-1)
xn    = max(n)
xq    = max(q, axis=1)
zz    = masked_fill(z, unsqueeze(zm, 2), -inf)
zz    = masked_fill(zz, zn * unsqueeze(zr, 2), nan)
xz    = max(zz)
output x1, x17, x127, x1001, xt, xu, xn, xq, xz
