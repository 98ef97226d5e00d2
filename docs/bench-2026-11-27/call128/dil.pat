model dil
dim B = 32, C = 512, T = 1536
dtype DT = f16
input  y    : DT[B, C, T]
weight wdil : DT[2*C, C, 3]
weight bdil : DT[2*C]
o = conv1d(y, wdil, bdil, kernel=3, dilation=2, padding=2)
output o
