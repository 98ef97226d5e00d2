# A7: a plain rename is refused with a hint.
# expect: 5:5: error: 'y' = 'x' only renames an input; use 'x' directly
model m
input x : f32[4]
y = x
output y
