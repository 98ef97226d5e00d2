# Golden: layout ops.  A transpose feeding a GEMM is a view (the GEMM reads
# through strides); a reshape of a transposed tensor cannot be a view and is
# a copy; a reshape of a contiguous tensor is a view.  A layout op whose
# result is a model output is an elementwise kernel instead, whatever it
# could be: a kernel must write the caller's tensor.
model views
dim B = 2, C = 4, T = 8, N = 6
dtype DT = f32

input  x  : DT[B, C, T]
weight w  : DT[N, C]
weight w2 : DT[N, T * C]

xt = transpose(x, 1, 2)
y  = linear(xt, w)
z  = reshape(transpose(x, 1, 2), [B, T * C])
u  = reshape(x, [B, C * T])
v  = unsqueeze(y, axis=1)
y2 = linear(reshape(transpose(x, 1, 2), [B, T * C]), w2)
y3 = linear(reshape(x, [B, C * T]), w2)
output y, z, u, v, y2, y3

# --- plan ---
# k0_transpose view -
# k1_linear generic gemm
# k2_transpose view -
# k3_elementwise elementwise elementwise
# k4_elementwise elementwise elementwise
# k5_elementwise elementwise elementwise
# k6_transpose view -
# k7_reshape copy copy
# k8_linear generic gemm
# k9_reshape view -
# k10_linear generic gemm
