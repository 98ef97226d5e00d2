# gemm template: conv1d whose weight is stored tap-major ([Cout, K, Cin],
# seen through a transpose), so the K axis runs over (tap, channel).  On
# sm_90 each K tile of A is one TMA box of x shifted by its tap: along T
# where the shifts are multiples of 8 (y2, y3), along an outer axis where x
# is channel-last (y5, y6, any dilation); the others take the generic
# paths with the same K order.
model gemm_convt
dim B = 2, C = 64, D = 128, T = 64, E = 40
dtype DT = f16

input  x  : DT[B, C, T]
input  xp : DT[B, C, T + 32]
input  xe : DT[B, E, T]
input  xl : DT[B, T, C]
weight w3 : DT[D, 3, C]
weight w5 : DT[D, 5, C]
weight we : DT[D, 3, E]
weight b  : DT[D]

y1 = conv1d(x, transpose(w3, 1, 2), b, kernel=3, dilation=2, padding=2)
y2 = conv1d(x, transpose(w3, 1, 2), b, kernel=3, dilation=8, padding=8)
y3 = conv1d(xp, transpose(w5, 1, 2), kernel=5, dilation=8, padding=0)
y4 = conv1d(xe, transpose(we, 1, 2), b, kernel=3, dilation=2, padding=2)
y5 = conv1d(transpose(xl, 1, 2), transpose(w3, 1, 2), b, kernel=3, dilation=2, padding=2)
y6 = conv1d(transpose(xl, 1, 2), transpose(w5, 1, 2), b, kernel=5, dilation=1, padding=2)
output y1, y2, y3, y4, y5, y6
