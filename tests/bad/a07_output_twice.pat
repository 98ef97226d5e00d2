# A7: an output listed twice: the note points at the first listing.
# expect: 8:8: error: 'y' is output twice
# expect-note: 7:8: 'y'
model m
input x : f32[4]
y = exp(x)
output y
output y
