# A10: a dim that does not fit 64 bits.
# expect: 4:9: error: integer '99999999999999999999' does not fit in 64 bits
model m
dim C = 99999999999999999999
