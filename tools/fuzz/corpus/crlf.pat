model crlf
dim N = (8 - 2) / 2
input x : f32[N]   # comment
y = gelu(
    x,
    approximate="none")
output y
