# A12: a quoted name.
# expect: 4:7: error: expected a name, found a string
model m
input "x" : f32[4]
