# rows longer than 256 elements per thread even at TPR = 1024.
model rownorm_long
input x : f32[2, 300000]
input h : f16[1, 270001]
s = softmax(x)
l = layernorm(h)
output s, l
