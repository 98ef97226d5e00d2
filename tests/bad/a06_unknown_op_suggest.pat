# A6: a misspelt op gets a suggestion.
# expect: 6:5: error: unknown op 'matmull' (did you mean 'matmul'?)
model m
input a : f32[2, 3]
input b : f32[3, 4]
y = matmull(a, b)
output y
