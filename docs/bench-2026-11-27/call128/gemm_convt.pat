# gemm template: conv1d whose weight is stored tap-major ([Cout, K, Cin],
# seen through a transpose), so the K axis runs over (tap, channel): on
# sm_90 each K tile of A is one TMA box of x shifted by its tap
# (tests/kernels/gemm_convt.pat as call 128 ran it)
model gemm_convt
dim B = 2, C = 128, D = 192, T = 128, E = 96
dtype DT = f16

input  x  : DT[B, C, T]
input  xp : DT[B, C, T + 8]
input  xe : DT[B, E, T]
weight w3 : DT[D, 3, C]
weight w5 : DT[D, 5, C]
weight we : DT[D, 3, E]
weight b  : DT[D]

y1 = conv1d(x, transpose(w3, 1, 2), b, kernel=3, padding=1)
y2 = conv1d(x, transpose(w3, 1, 2), b, kernel=3, dilation=4, padding=4)
y3 = conv1d(xp, transpose(w5, 1, 2), kernel=5, dilation=2, padding=0)
y4 = conv1d(xe, transpose(we, 1, 2), b, kernel=3, dilation=2, padding=2)
output y1, y2, y3, y4
