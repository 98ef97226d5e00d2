# A10: a negative dim.
# expect: 4:9: error: dim is -4; dims must be positive
model m
dim C = -4
