# A7/A11: an input whose shape is bad (a zero dim): its uses are not
# reported again as undefined names, nor its outputs as never defined.
# expect: 6:9: error: dim is 0; dims must be positive
# expect-errors: 1
model m
dim B = 0
input x : f32[B, 4]
y = exp(x)
z = y + x
output y, z
