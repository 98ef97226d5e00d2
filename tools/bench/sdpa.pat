# tools/bench: scaled dot-product attention (DESIGN.md section 9, row 4:
# B=4 H=16 T=4096 D=128), softmax scale 1/sqrt(D).
model sdpa
dim B = 4, H = 16, T = 4096, D = 128
dtype DT = f16

input q : DT[B, H, T, D]
input k : DT[B, H, T, D]
input v : DT[B, H, T, D]

out = sdpa(q, k, v)
output out
