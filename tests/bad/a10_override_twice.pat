# A10: the same dim overridden twice: the second is either refused as a
# repeat or wins (and B=0 is refused); it is not 'unknown'.
# args: --dim B=3 --dim B=0
# expect: kgen: error: --dim B
# expect-not: the model has no dim 'B'
model m
dim B = 2
input x : f32[B]
y = exp(x)
output y
