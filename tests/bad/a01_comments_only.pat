# A1: comments and blank lines only: there is no model.
# expect: 1:1: error: no model defined
# expect-errors: 1
# model m
   # input x : f32[4]

