# A12: CUDA's '__global__' as a name.
# expect: 5:8: error: '__global__': names starting with '__'
# expect: 5:8: error: are reserved
model m
weight __global__ : f32[4]
