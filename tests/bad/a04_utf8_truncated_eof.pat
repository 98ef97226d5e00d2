# A4: a 3-byte sequence cut short by the end of the file (E2 82, no
# final newline).
# expect: 7:3: error: invalid UTF-8 byte 0xE2
# expect-errors: 1
model m
input x : f32[4]
# â‚