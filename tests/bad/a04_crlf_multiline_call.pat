# A4: a call wrapped over CRLF lines; the error inside it is on its own line.
# expect: 6:5: error: linear: K mismatch 4
model m
input x : f32[2, 4]
weight w : f32[3, 5]
y = linear(
      x,
      w)
output y
