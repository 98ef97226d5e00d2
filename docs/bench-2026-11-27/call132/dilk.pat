model dilk
dim B = 32, C = 512, T = 1536
dtype DT = f16
input  yt   : DT[B, T, C]
weight wdil : DT[2*C, C, 3]
weight bdil : DT[2*C]
w2 = reshape(transpose(wdil, 1, 2), [2*C, 3*C])
w4 = transpose(reshape(w2, [2*C, 3, C]), 1, 2)
o = conv1d(transpose(yt, 1, 2), w4, bdil, kernel=3, dilation=2, padding=2)
output o
