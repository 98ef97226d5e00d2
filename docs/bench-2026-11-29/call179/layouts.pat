# LYNXNet2's depthwise conv (its dims) twice on one channels-last input: k1
# writes the channel-first [B, C, T] as before, k3 channels-last through the
# transpose the planner now gives it (call 179's comparison).
model dwconv_layouts
dim B = 64, T = 768, C = 1024
input  h   : f16[B, T, C]
weight w   : f16[C, 1, 31]
weight b   : f16[C]
y1 = conv1d(transpose(h, 1, 2), w, b, padding=15, groups=C)
y2 = transpose(conv1d(transpose(h, 1, 2), w, b, padding=15, groups=C), 1, 2)
z2 = relu(y2)
output y1, z2
