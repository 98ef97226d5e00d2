# 'template' belongs to pattern files only.
# expect: 4:1: error: 'template' is allowed only in pattern files
model m
template gemm
input x : f32[4]
y = exp(x)
output y
