model crlf
dim N = (8 - 2) / 2
input x : f31[N]   # pproximate="noneodel crlf
dim N = (8 - 2) / 2
input x : f32[N]   # pproximate="none