# A10: division by zero in a dim expression.
# expect: 4:18: error: division by zero in a dim expression
model m
dim C = 4, D = C / (C - 4)
