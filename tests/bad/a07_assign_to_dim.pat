# A7: a dim cannot be assigned.
# expect: 7:1: error: cannot assign to dim 'C'
# expect-note: 5:5: 'C' is declared here
model m
dim C = 4
input x : f32[C]
C = exp(x)
