# A5: a string still open at the end of the file (no newline).
# expect: 6:25: error: unterminated string started here
# expect: 6:9: error: unclosed '(' opened here
model m
input x : f32[4]
y = gelu(x, approximate="tan