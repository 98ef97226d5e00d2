# sum and mean on the reduce template: rows of 1, 17, 127, 257, 1001, keepdim
# or not, non-last axes, transposed views, f32/f16/bf16, i32 and bool.
model reduce_sum
dim B = 3

input a1    : f32[B, 1]
input a17   : f16[B, 4, 17]
input a127  : bf16[B, 127]
input a257  : f32[257]
input a1001 : f32[B, 1001]
input t     : f16[B, 257, 5]
input u     : bf16[B, 33, 17]
input n     : i32[B, 17, 9]
input q     : bool[B, 127]

s1    = sum(a1)
s17   = sum(a17, axis=-1, keepdim=true)
m127  = mean(a127)
s257  = sum(a257, axis=0)
m1001 = mean(a1001, keepdim=true)
st    = sum(t, axis=1)
ut    = transpose(u, 1, 2)
mu    = mean(ut, axis=-1)
mu0   = mean(ut, axis=0, keepdim=true)
sn    = sum(n, axis=1)
sq    = sum(q)
output s1, s17, m127, s257, m1001, st, mu, mu0, sn, sq
