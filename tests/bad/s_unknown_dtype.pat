# A dtype kgen does not have.
# expect: 4:12: error: unknown dtype 'f64'
model m
dtype DT = f64
