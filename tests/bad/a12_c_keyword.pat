# A12: a C keyword as a name.
# expect: 4:7: error: 'int' is reserved and cannot be used as a name
model m
input int : f32[4]
