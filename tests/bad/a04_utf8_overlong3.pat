# A4: a 3-byte overlong encoding (E0 80 AF) of '/'.
# expect: 4:9: error: invalid UTF-8 byte 0xE0
# expect-errors: 1
model m à€¯
