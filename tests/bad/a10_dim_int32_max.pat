# A10: a dim over INT32_MAX.
# expect: 4:9: error: dim is 2147483648, more than the limit 2147483647
model m
dim C = 2147483648
