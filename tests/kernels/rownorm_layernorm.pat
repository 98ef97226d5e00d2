# layernorm on the rownorm template: with and without gamma/beta, strided
# rows, transposed views, row lengths 1, 17, 127, 257, 1001.
model rownorm_layernorm
dim B = 3

input  x1    : f32[B, 1]
input  x17   : f16[B, 2, 17]
input  x127  : bf16[B, 127]
input  x257  : f32[1, 257]
input  x1001 : f16[B, 1001]
input  t     : f32[B, 17, 9]
input  u     : bf16[B, 257, 5]
weight g17   : f16[17]
weight b17   : f16[17]
weight g127  : bf16[127]
weight b257  : f32[257]
weight g1001 : f16[1001]
weight b1001 : f16[1001]
weight gt    : f32[17]
weight gu    : bf16[257]
weight bu    : bf16[257]

l1    = layernorm(x1)
l17   = layernorm(x17, g17, b17)
l127  = layernorm(x127, g127, eps=1e-3)
l257  = layernorm(x257, beta=b257)
l1001 = layernorm(x1001, g1001, b1001, eps=1e-6)
lt    = layernorm(t, gt, axis=1)
ut    = transpose(u, 1, 2)
lu    = layernorm(ut, gu, bu)
output l1, l17, l127, l257, l1001, lt, lu
