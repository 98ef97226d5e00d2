# A4: an overlong encoding of '/' (C0 AF) in a comment: one error for the
# mangled character, at its first byte.
# expect: 7:14: error: invalid UTF-8 byte 0xC0
# expect-errors: 1
model m
input x : f32[4]
y = exp(x) # À¯
output y
