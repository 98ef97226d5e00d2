# A7: one name twice on the left.
# expect: 5:4: error: 'a' is assigned twice in one statement
model m
input x : f32[4]
a, a = split(x, [2, 2])
output a
