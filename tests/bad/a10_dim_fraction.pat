# A10: dims are integers.
# expect: 4:9: error: dims must be integers, not 1.5
model m
dim C = 1.5
