# A10: --dim B=two.
# args: --dim B=two
# expect: kgen: error: --dim B=two: expected an integer
model m
dim B = 2
input x : f32[B]
y = exp(x)
output y
