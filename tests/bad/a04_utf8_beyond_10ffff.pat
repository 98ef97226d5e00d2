# A4: F5 would start a code point past U+10FFFF.
# expect: 4:5: error: invalid UTF-8 byte 0xF5
model m
y = õ€€€
