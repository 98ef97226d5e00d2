# Several parse errors: one per statement, all reported.
# expect: 7:9: error: expected ':' and a type
# expect: 8:5: error: expected an expression, found ')'
# expect: 9:9: error: expected an expression, found '*'
# expect-errors: 3
model m
input x f32[4]
y = )
z = x + * x
output y
