# A12: OpenCL's 'kernel' as a name.
# expect: 5:1: error: 'kernel' is reserved and cannot be used as a name
model m
input x : f32[4]
kernel = exp(x)
output kernel
