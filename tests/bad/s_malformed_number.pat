# A number glued to a name.
# expect: 5:9: error: malformed number '2x'
model m
input x : f32[4]
y = x * 2x
output y
