# A5: '[' still open at the end of the file points at the '['.
# expect: 4:14: error: unclosed '[' opened here
model m
input x : f32[4, 4
