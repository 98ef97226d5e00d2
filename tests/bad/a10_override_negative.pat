# A10: --dim B=-3.
# args: --dim B=-3
# expect: kgen: error: --dim B=-3: expected an integer
model m
dim B = 2
input x : f32[B]
y = exp(x)
output y
