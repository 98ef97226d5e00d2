# A12: CUDA's threadIdx as a dim name.
# expect: 4:5: error: 'threadIdx' is reserved and cannot be used as a name
model m
dim threadIdx = 4
