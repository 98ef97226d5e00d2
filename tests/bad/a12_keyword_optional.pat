# A12: 'optional' is a statement keyword (pattern files), so never a name.
# expect: 5:7: error: 'optional' is a keyword and cannot be used as a name
# expect-errors: 1
model m
input optional : f32[4]
y = exp(optional)
output y
