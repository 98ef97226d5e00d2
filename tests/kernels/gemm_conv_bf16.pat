# gemm template: bf16 conv1d at tile-multiple sizes (the WaveNet dilated conv)
model gemm_conv_bf16
dim B = 1, C = 64, T = 128
dtype DT = bf16

input  x  : DT[B, C, T]
weight w  : DT[2*C, C, 3]
weight b  : DT[2*C]
weight w1 : DT[2*C, C, 1]

y1 = conv1d(x, w, b, kernel=3, dilation=2, padding=2)
y2 = conv1d(x, w1, b, kernel=1)
output y1, y2
