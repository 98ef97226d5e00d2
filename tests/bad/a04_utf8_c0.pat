# A4: 0xC0 can never start a UTF-8 sequence.
# expect: 5:14: error: invalid UTF-8 byte 0xC0
model m
input x : f32[4]
y = exp(x) + À
output y
