# A4: LF, CRLF and CR mixed in one file; \n\r is two line ends.
# expect: 9:9: error: undefined name 'q'
model m
input x : f32[4]
# line 4 (LF CR above made lines 3 and 4)
# six
y = exp(q)
output y
