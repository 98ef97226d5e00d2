model dil8
dim B = 32, C = 512, T = 1536
dtype DT = f16
input  y    : DT[B, C, T]
weight wdil : DT[2*C, C, 3]
weight bdil : DT[2*C]
o = conv1d(y, wdil, bdil, kernel=3, dilation=8, padding=8)
output o
