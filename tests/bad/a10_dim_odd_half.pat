# A10: HD/2 with an odd HD is not an integer.
# expect: 6:20: error: dim expression 191 / 2 is not an integer
model m
dim HD = 191
input x : f32[HD]
a, b = split(x, [HD/2, HD/2])
output a, b
