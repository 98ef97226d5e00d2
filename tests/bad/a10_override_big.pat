# A10: --dim B over INT32_MAX.
# args: --dim B=4294967296
# expect: kgen: error: --dim B=4294967296: expected an integer
model m
dim B = 2
input x : f32[B]
y = exp(x)
output y
