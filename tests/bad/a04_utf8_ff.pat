# A4: 0xFF is never valid UTF-8, not even in a comment.
# expect: 5:23: error: invalid UTF-8 byte 0xFF
# expect-errors: 1
model m
input x : f32[4]    # ÿ
y = exp(x)
output y
