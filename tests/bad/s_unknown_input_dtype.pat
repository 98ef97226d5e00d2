# An input of an unknown dtype.
# expect: 4:11: error: unknown dtype 'double'
model m
input x : double[4]
