# A8: a cycle cannot be written (names are defined before use): the
# first use of b is before its definition.
# expect: 8:5: error: 'b' is used before its definition
# expect-note: 9:1: 'b' is defined here
# expect-errors: 1
model m
input x : f32[4]
a = b + 1
b = a + 1
output b
