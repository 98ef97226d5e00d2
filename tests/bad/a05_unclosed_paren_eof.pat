# A5: '(' still open at the end of the file: newlines inside brackets do
# not end the statement, so the error is at EOF and points at the opener.
# expect: 7:8: error: unclosed '(' opened here
# expect-errors: 1
model m
input x : f32[4]
y = exp(x

# the end
