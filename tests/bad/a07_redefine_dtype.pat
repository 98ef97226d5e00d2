# A7: a dtype declared twice.
# expect: 6:7: error: redefinition of dtype 'DT'
# expect-note: 5:7: previous definition of 'DT' is here
model m
dtype DT = f16
dtype DT = f32
