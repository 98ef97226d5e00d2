# A7: after an error in h's definition, later uses of h must not be
# reported as undefined: one error only.
# expect: 7:9: error: undefined name 'qq'
# expect-errors: 1
model m
input x : f32[4]
h = exp(qq)
y = h + 1
z = exp(h)
output y, z
