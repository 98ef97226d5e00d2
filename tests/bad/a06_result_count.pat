# A6: two names for three results.
# expect: 5:1: error: 2 names assigned but the right side gives 3 results
model m
input x : f32[6]
a, b = split(x, [2, 2, 2])
output a
