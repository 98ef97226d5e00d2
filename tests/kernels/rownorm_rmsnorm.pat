# rmsnorm on the rownorm template.
model rownorm_rmsnorm
dim B = 3

input  x1    : bf16[B, 1]
input  x17   : f32[B, 17]
input  x127  : f16[B, 4, 127]
input  x1001 : bf16[B, 1001]
input  t     : f16[B, 257, 3]
input  u     : f32[B, 33, 17]
weight g17   : f32[17]
weight g1001 : bf16[1001]
weight gt    : f16[257]

r1    = rmsnorm(x1)
r17   = rmsnorm(x17, g17, eps=1e-5)
r127  = rmsnorm(x127)
r1001 = rmsnorm(x1001, g1001)
rt    = rmsnorm(t, gt, axis=1)
ut    = transpose(u, 1, 2)
ru    = rmsnorm(ut)
output r1, r17, r127, r1001, rt, ru
