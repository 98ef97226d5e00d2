# A10/A11: --dim B=0 on the command line.
# args: --dim B=0
# expect: kgen: error: --dim B=0: expected an integer from 1 to 2147483647
model m
dim B = 2
input x : f32[B]
y = exp(x)
output y
