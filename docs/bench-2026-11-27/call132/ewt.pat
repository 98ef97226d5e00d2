model ewt
dim B = 32, C = 512, T = 1536
dtype DT = f16
input x : DT[B, C, T]
input s : DT[B, C]
yt = transpose(x + unsqueeze(s, axis=2), 1, 2)
output yt
