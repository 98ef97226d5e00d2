# A10: a dim expression overflowing 64 bits.
# expect: 4:20: error: dim expression overflows 64 bits
model m
dim C = 4294967296 * 4294967296
