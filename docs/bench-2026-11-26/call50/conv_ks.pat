model conv_ks
dim B = 2, C = 64, C2 = 40, D = 96, T = 256
dtype DT = f16
input  x  : DT[B, C, T]
input  x2 : DT[B, C2, T]
weight w5 : DT[D, C, 5]
weight w7 : DT[D, C, 7]
weight w3 : DT[D, C2, 3]
weight b  : DT[D]
y1 = conv1d(x, w5, b, kernel=5, padding=4, dilation=2)
y2 = conv1d(x, w7, b, kernel=7, padding=9, dilation=3)
y3 = conv1d(x2, w3, b, kernel=3, padding=1)
output y1, y2, y3
