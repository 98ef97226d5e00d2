# A10/A11: a zero dim is rejected.
# expect: 4:9: error: dim is 0; dims must be positive
model m
dim C = 0
