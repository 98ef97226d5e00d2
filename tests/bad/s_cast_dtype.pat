# cast to a dtype kgen does not have.
# expect: 5:13: error: cast: 'f64' is not a dtype
model m
input x : f32[4]
y = cast(x, f64)
output y
