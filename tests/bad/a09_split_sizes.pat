# A9: split sizes that do not add up to the axis.
# expect: 5:17: error: split: the sizes add up to 7 but axis 1 of 'x' f32[2, 8] (
model m
input x : f32[2, 8]
a, b = split(x, [3, 4], axis=1)
output a, b
