# An input without ':'.
# expect: 4:9: error: expected ':' and a type such as DT[B, C], found 'f32'
model m
input x f32[4]
