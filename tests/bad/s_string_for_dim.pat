# A string as a dim value.
# expect: 4:9: error: expected a dim expression
model m
dim C = "4"
