# WaveNet's dilated conv on an x read along T: a model input, so layout.c
# leaves it channel-first, and at a dilation off 8 the gemm template builds
# each K tile from x's raw rows shifted by their taps (the producer's pass).
# tests/check_kernels.sh and tests/gpu_kernels.sh check that path here at
# WaveNet's channel counts; in the example the conv now reads a
# channel-last x.
model gemm_conv_dil
dim B = 2, C = 64, T = 128, DIL = 2
dtype DT = f16
input  x    : DT[B, C, T]
weight wdil : DT[2*C, C, 3]
weight bdil : DT[2*C]
y = conv1d(x, wdil, bdil, kernel=3, dilation=DIL, padding=DIL)
output y
