# --dtype with a dtype kgen does not have.
# args: --dtype DT=f64
# expect: kgen: error: --dtype DT=f64: expected f16, bf16, f32, i32 or bool
model m
dtype DT = f16
input x : DT[4]
y = exp(x)
output y
