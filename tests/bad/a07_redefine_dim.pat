# A7: a dim declared twice.
# expect: 6:5: error: redefinition of dim 'B'
# expect-note: 5:12: previous definition of 'B' is here
model m
dim C = 4, B = 2
dim B = 3
