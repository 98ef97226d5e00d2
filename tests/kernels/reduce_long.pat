# a reduction longer than 256 elements per thread even at TPR = 1024.
model reduce_long
input x : f32[2, 300000]
input h : bf16[270001, 2]
s = sum(x)
m = max(h, axis=0)
output s, m
