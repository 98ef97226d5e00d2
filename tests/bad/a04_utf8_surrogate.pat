# A4: an encoded UTF-16 surrogate (ED A0 80 = U+D800) is not UTF-8.
# expect: 5:11: error: invalid UTF-8 byte 0xED
# expect-errors: 1
model m
# comment í €
input x : f32[4]
