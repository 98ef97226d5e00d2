# A10: --dim that makes a tensor too large is caught where it is declared.
# args: --dim B=2147483647
# expect: 6:7: error: tensor 'x' f32[2147483647, 2147483647] needs 2^64 bytes
model m
dim B = 2
input x : f32[B, B]
y = exp(x)
output y
