# A7: an input cannot be reassigned (it is not an SSA value of the body).
# expect: 6:1: error: cannot assign to input 'x'
# expect-note: 5:7: 'x' is declared here
model m
input x : f32[4]
x = exp(x)
output x
