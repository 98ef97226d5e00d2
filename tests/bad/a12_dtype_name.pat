# A12: a dtype name as a tensor name.
# expect: 4:7: error: 'f16' is reserved and cannot be used as a name
model m
input f16 : f32[4]
