# Golden: the GLU written with split(parts=2) -- torch.chunk(2, dim=-1), as
# LYNXNet writes it -- is the same computation as split(sizes=[N, N]) and
# fuses the same way.
model gemm_glu_chunk
dim B = 2, M = 4, K = 8, N = 6
dtype DT = f32

input  x : DT[B, M, K]
weight w : DT[2*N, K]
weight b : DT[2*N]

o, g = split(linear(x, w, b), parts=2, axis=-1)
y    = o * atan(g)
output y

# --- plan ---
# k0_gemm_glu fused gemm
