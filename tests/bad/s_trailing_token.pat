# Something after a complete statement.
# expect: 3:9: error: expected end of line, found 'extra'
model m extra
