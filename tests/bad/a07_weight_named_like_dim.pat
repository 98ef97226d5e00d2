# A7: a weight with a dim's name.
# expect: 6:8: error: redefinition of dim 'C'
# expect-note: 5:5: previous definition of 'C' is here
model m
dim C = 4
weight C : f32[C]
