# attempt 29's measurement for the next step: WaveNet's dilated conv with
# K = 3 * 640 = 1920, the K it would have with the condition's 1x1 conv
# (H = 384) folded in as extra K (3 * 512 + 384 = 1920).  x comes from an
# elementwise op, so the plan writes it channel-last as in the layer.
model conv1920
dim B = 32, C = 640, N = 1024, T = 1536
dtype DT = f16
input  x : DT[B, C, T]
input  s : DT[B, C]
weight w : DT[N, C, 3]
weight b : DT[N]
y = conv1d(x + unsqueeze(s, axis=2), w, b, kernel=3, dilation=2, padding=2)
output y
