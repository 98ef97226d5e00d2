# Golden: layout ops.  A transpose feeding a GEMM is a view (the GEMM reads
# through strides); a reshape of a transposed tensor cannot be a view and is
# a copy; a reshape of a contiguous tensor and an unsqueeze are views.
model views
dim B = 2, C = 4, T = 8, N = 6
dtype DT = f32

input  x : DT[B, C, T]
weight w : DT[N, C]

xt = transpose(x, 1, 2)
y  = linear(xt, w)
z  = reshape(transpose(x, 1, 2), [B, T * C])
u  = reshape(x, [B, C * T])
v  = unsqueeze(y, axis=1)
output y, z, u, v

# --- plan ---
# k0_transpose view -
# k1_linear generic gemm
# k2_transpose view -
# k3_reshape copy copy
# k4_reshape view -
# k5_unsqueeze view -
