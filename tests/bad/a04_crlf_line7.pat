# A4: a CRLF file: the error on line 7 is reported on line 7, with the
# column counted in bytes from the line start.
# expect: 7:9: error: undefined name 'q'
# expect-errors: 1
model m
input x : f32[4]
y = exp(q)
output y
