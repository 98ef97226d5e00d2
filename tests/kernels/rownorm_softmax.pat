# softmax on the rownorm template: row lengths 1, 17, 127, 257, 1001,
# f32/f16/bf16, rows along a non-last axis, transposed views, -inf rows.
model rownorm_softmax
dim B = 3, R = 5

input a1    : f32[B, 1]
input a17   : f16[B, R, 17]
input a127  : bf16[B, 127]
input a257  : f32[1, 257]
input a1001 : f32[B, 1001]
input t     : f16[B, 17, 33]
input u     : bf16[B, 40, 17]
input z     : f32[B, 7, 64]
input zm    : bool[B, 7]      # 20% of rows (never the first) all -inf

s1    = softmax(a1)
s17   = softmax(a17, axis=-1)
s127  = softmax(a127)
s257  = softmax(a257)
s1001 = softmax(a1001)
st    = softmax(t, axis=1)
ut    = transpose(u, 1, 2)
su    = softmax(ut, axis=-1)
zz    = masked_fill(z, unsqueeze(zm, 2), -inf)
sz    = softmax(zz)
output s1, s17, s127, s257, s1001, st, su, sz
