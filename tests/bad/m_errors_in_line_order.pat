# Errors come in the order of the lines they are on, whichever stage
# finds them (here a parse error on line 2, a bad byte on line 3).
# expect: 7:9: error: expected ':' and a type
# expect: 8:7: error: unexpected character '$'
# expect-order: lines
model m
input x f32[4]
y = x $+ x
output y
