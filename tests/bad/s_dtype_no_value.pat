# A model's dtype needs a value.
# expect: 4:7: error: dtype 'DT' has no value
model m
dtype DT
