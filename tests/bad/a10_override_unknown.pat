# A10: --dim for a dim the model does not have.
# args: --dim Q=4
# expect: kgen: error: --dim Q=4: the model has no dim 'Q'
model m
dim B = 2
input x : f32[B]
y = exp(x)
output y
