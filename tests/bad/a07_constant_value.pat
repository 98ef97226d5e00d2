# A7: a name bound to a bare number.
# expect: 5:7: error: 'k' would be a constant; write the number where it is used
model m
input x : f32[4]
k = 2 * 3
y = x * k
output y
