# A12: the model's own name is checked too.
# expect: 3:7: error: 'float' is reserved and cannot be used as a name
model float
