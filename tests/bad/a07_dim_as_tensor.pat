# A7: a dim used where a tensor is needed.
# expect: 5:9: error: 'C' is a dim, not a tensor
model m
dim C = 4
y = exp(C)
