# A4: a control byte (0x01) between tokens.
# expect: 4:9: error: unexpected control byte 0x01
model m
input x : f32[4]
