# The first statement must be 'model NAME'.
# expect: 3:1: error: a file starts with 'model NAME'
dim B = 2
model m
