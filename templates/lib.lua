-- templates/lib.lua -- the helper library every template sees as `kg`.
--
-- It hides the differences between CUDA and OpenCL C that every template
-- meets: storage types and loads/stores per dtype (f16 through vload_half /
-- vstore_half on OpenCL, so no cl_khr_fp16 is needed; bf16 as raw 16-bit
-- words there), the kernel qualifiers and thread indices, and the float
-- formulas of the elementwise ops.  All arithmetic is in f32; loads widen
-- to float and stores round to nearest even.
--
-- kgen adds two C functions: kg.line() returns a #line directive for the
-- calling template line, and kg.hex(x) the exact value of x as a C float
-- literal.  Everything here is deterministic: no pairs over tables whose
-- order matters, no randomness.

local kg = {}

local function fail(fmt, ...)
  error(string.format(fmt, ...), 2)
end
kg.fail = fail

-- storage type of a dtype in kernel arguments
local ctypes = {
  cuda   = { f16 = "__half", bf16 = "__nv_bfloat16", f32 = "float",
             i32 = "int", bool = "unsigned char" },
  opencl = { f16 = "half", bf16 = "ushort", f32 = "float",
             i32 = "int", bool = "uchar" },
}

function kg.ctype(spec, dtype)
  local t = ctypes[spec.backend][dtype]
  if not t then fail("kg.ctype: no storage type for %s", tostring(dtype)) end
  return t
end

-- float-valued C expression loading element `index` of pointer `ptr`
function kg.load(spec, dtype, ptr, index)
  local i = "(" .. index .. ")"
  if spec.backend == "cuda" then
    if dtype == "f16" then return "__half2float(" .. ptr .. "[" .. i .. "])" end
    if dtype == "bf16" then return "__bfloat162float(" .. ptr .. "[" .. i .. "])" end
  else
    if dtype == "f16" then return "vload_half(" .. i .. ", " .. ptr .. ")" end
    if dtype == "bf16" then return "kg_bf16_to_float(" .. ptr .. "[" .. i .. "])" end
  end
  if dtype == "f32" then return ptr .. "[" .. i .. "]" end
  if dtype == "i32" or dtype == "bool" then
    return "((float)" .. ptr .. "[" .. i .. "])"
  end
  fail("kg.load: dtype %s", tostring(dtype))
end

-- statement storing float expression `x` into element `index` of `ptr`
function kg.store(spec, dtype, ptr, index, x)
  local i = "(" .. index .. ")"
  if dtype == "f16" then
    if spec.backend == "cuda" then
      return ptr .. "[" .. i .. "] = __float2half_rn(" .. x .. ");"
    end
    return "vstore_half_rte(" .. x .. ", " .. i .. ", " .. ptr .. ");"
  elseif dtype == "bf16" then
    if spec.backend == "cuda" then
      return ptr .. "[" .. i .. "] = __float2bfloat16_rn(" .. x .. ");"
    end
    return ptr .. "[" .. i .. "] = kg_float_to_bf16(" .. x .. ");"
  elseif dtype == "f32" then
    return ptr .. "[" .. i .. "] = " .. x .. ";"
  elseif dtype == "i32" then
    return ptr .. "[" .. i .. "] = (int)(" .. x .. ");"
  elseif dtype == "bool" then
    return ptr .. "[" .. i .. "] = (" .. x .. ") != 0.0f;"
  end
  fail("kg.store: dtype %s", tostring(dtype))
end

-- CUDA: a uint4 expression holding 16 bytes of `dtype` (f16, bf16 or f32),
-- element u (0-based) the float expression val(u)
function kg.pack16(spec, dtype, val)
  if spec.backend ~= "cuda" then fail("kg.pack16: CUDA only") end
  local w = {}
  if dtype == "f32" then
    for u = 0, 3 do w[#w + 1] = "__float_as_uint(" .. val(u) .. ")" end
  elseif dtype == "f16" or dtype == "bf16" then
    for u = 0, 7, 2 do
      w[#w + 1] = string.format("kg_pk_%s(%s, %s)", dtype, val(u), val(u + 1))
    end
  else
    fail("kg.pack16: dtype %s", tostring(dtype))
  end
  return "make_uint4(" .. table.concat(w, ", ") .. ")"
end

-- CUDA: a statement storing uint4 expression v at address addr (16-byte
-- aligned global memory) with one 16-byte store.  `*(uint4 *)addr = v`
-- leaves nvcc free to split the store into four 4-byte ones, and it did
-- in dwconv_ln and rownorm, four times the store instructions and partial
-- sectors (docs/performance.md, attempt 27); __stwb is st.global.wb.v4,
-- the default store
function kg.st16(spec, addr, v)
  if spec.backend ~= "cuda" then fail("kg.st16: CUDA only") end
  return string.format("__stwb((uint4 *)(%s), %s);", addr, v)
end

-- Code every kernel source starts with: includes and the portable macros
--   KG_KERNEL      the kernel qualifier (extern "C" __global__ / __kernel)
--   KG_GLOBAL      the global address space qualifier
--   KG_RESTRICT    restrict
--   KG_SHARED      block-shared memory qualifier
--   KG_BARRIER()   block barrier
--   KG_TID(a) KG_BID(a) KG_BDIM(a) KG_GDIM(a)   thread/block indices
--   KG_GRID_DEP()  every kernel's first statement.  On sm_90 it waits until
--                  the grid before it in the stream has finished and its
--                  writes are visible (griddepcontrol.wait), then lets the
--                  grid after it start launching (launch_dependents): a
--                  model's forward launches its kernels with programmatic
--                  stream serialization (runtime/fused.c), so each kernel's
--                  blocks are placed while the one before still runs, and
--                  nothing of them touches memory before it has finished.
--                  Launched plainly, the wait returns at once.  Elsewhere a
--                  no-op.
--   KG_NO_GRID_DEP()  the first statement instead of KG_GRID_DEP() of a
--                  persistent kernel (one block an SM, each walking a fixed
--                  share of the tiles: gemm's sched=pp).  It has no wait in
--                  its PTX, so the runtime launches it plainly: placed early,
--                  its blocks would hold the SMs the kernel before still
--                  needs, and a block placed late would stretch the whole
--                  walk (H100, 2026-11-26: a LayerNorm 57 -> 203 us and the
--                  GEMM after it 1589 -> 2033 us).
-- and the bf16 and rounding helpers.
function kg.prelude(spec)
  if spec.backend == "cuda" then
    return [[
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#define KG_KERNEL extern "C" __global__
#define KG_GLOBAL
#define KG_RESTRICT __restrict__
#define KG_SHARED __shared__
#define KG_BARRIER() __syncthreads()
#define KG_TID(a) ((long)(a == 0 ? threadIdx.x : a == 1 ? threadIdx.y : threadIdx.z))
#define KG_BID(a) ((long)(a == 0 ? blockIdx.x : a == 1 ? blockIdx.y : blockIdx.z))
#define KG_BDIM(a) ((long)(a == 0 ? blockDim.x : a == 1 ? blockDim.y : blockDim.z))
#define KG_GDIM(a) ((long)(a == 0 ? gridDim.x : a == 1 ? gridDim.y : gridDim.z))
#define KG_INF __int_as_float(0x7f800000)
#define KG_NAN __int_as_float(0x7fffffff)
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define KG_GRID_DEP() asm volatile("griddepcontrol.wait;\n\tgriddepcontrol.launch_dependents;" ::: "memory")
#else
#define KG_GRID_DEP() ((void)0)
#endif
#define KG_NO_GRID_DEP() ((void)0)
__device__ __forceinline__ float kg_round_f16(float x) { return __half2float(__float2half_rn(x)); }
__device__ __forceinline__ float kg_round_bf16(float x) { return __bfloat162float(__float2bfloat16_rn(x)); }
/* two floats rounded to 16 bits as one 32-bit word, the first in the low
   half (kg.pack16) */
__device__ __forceinline__ unsigned kg_pk_f16(float a, float b)
{
  const __half2 h = __floats2half2_rn(a, b);
  return *(const unsigned *)&h;
}
__device__ __forceinline__ unsigned kg_pk_bf16(float a, float b)
{
  const __nv_bfloat162 h = __floats2bfloat162_rn(a, b);
  return *(const unsigned *)&h;
}
/* kg.fastmath: GELU, sigmoid, tanh and atan from the hardware's 2^x and 1/x
   (one MUFU op each) for kernels whose results are stored in 16 bits:
   within 6.2e-6 of the exact functions (docs/templates.md), against the
   2^-11 of an f16 store, and without the branches of erff */
__device__ __forceinline__ float kg_ex2(float x) { float y; asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x)); return y; }
__device__ __forceinline__ float kg_rcp(float x) { float y; asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x)); return y; }
__device__ __forceinline__ float kg_sigmoid_f(float x) { return kg_rcp(1.0f + kg_ex2(x * -1.4426950408889634f)); }
__device__ __forceinline__ float kg_tanh_f(float x) { return 1.0f - 2.0f * kg_rcp(1.0f + kg_ex2(x * 2.8853900817779268f)); }
/* x * Phi(x) = max(x, 0) - a Phi(-a), a = |x|, with Phi(-a) = 2^Q(a) and Q
   a degree-6 polynomial fitted here (tools/fit_gelu.py: minimax of log2
   Phi(-a) over a in [0, 6], its error weighted by the GELU's relative to
   max(|GELU|, 6.1e-5), f16's smallest normal; 6.2e-6 relative where |GELU|
   > 6.1e-5, 8.7e-7 absolute, evaluated in f32): one MUFU op (ex2), 10
   instructions.  In a GEMM's epilogue each costs an issue cycle or more
   that nothing overlaps (docs/performance.md, attempt 25), so the degree is the
   lowest that keeps the error under a seventieth of an f16 store's 2^-11
   (tests/fast_gelu.sh checks the fit).  a stops at 6, where a Phi(-a) <
   6e-9; min.NaN keeps a NaN a NaN */
__device__ __forceinline__ float kg_gelu_a(float x)
{
  float a; asm("min.NaN.f32 %0, %1, 0f40C00000;" : "=f"(a) : "f"(fabsf(x))); return a;
}
#define KG_GELU_Q(q, a) q = fmaf(3.24445294e-05f, a, -0.000748418154f); q = fmaf(q, a, 0.00794225785f); \
  q = fmaf(q, a, -0.0530517913f); q = fmaf(q, a, -0.45917046f); q = fmaf(q, a, -1.15103666f); \
  q = fmaf(q, a, -1.00000758f)
__device__ __forceinline__ float kg_gelu_f(float x)
{
  const float a = kg_gelu_a(x);
  float q;
  KG_GELU_Q(q, a);
  return fmaf(-a, kg_ex2(q), fmaxf(x, 0.0f));
}
/* atan(x) = +-(t P(t^2)), t = min(|x|, 1/|x|), or pi/2 minus that where
   |x| > 1, with P a degree-5 polynomial fitted here (minimax of atan(t) / t
   over t^2 in [0, 1], relative; tools/fit_gelu.py --atan): 4.4e-6
   relative, one MUFU op (rcp) and 13 instructions, no branch, where atanf
   takes a degree-7 polynomial, a branch and a NaN check (tests/fast_gelu.sh
   checks the fit).  A NaN stays a NaN, +-inf gives +-pi/2 */
#define KG_ATAN_P(p, s) p = fmaf(-0.0134804696f, s, 0.0574773136f); p = fmaf(p, s, -0.121239071f); \
  p = fmaf(p, s, 0.195635925f); p = fmaf(p, s, -0.332994597f); p = fmaf(p, s, 0.99999563f)
__device__ __forceinline__ float kg_atan_t(float x) { const float a = fabsf(x); return fminf(a, kg_rcp(a)); }
/* atan(x) from y = atan(t) */
__device__ __forceinline__ float kg_atan_fold(float x, float y) { return copysignf(fabsf(x) > 1.0f ? 1.57079637f - y : y, x); }
__device__ __forceinline__ float kg_atan_f(float x)
{
  const float t = kg_atan_t(x), s = t * t;
  float p;
  KG_ATAN_P(p, s);
  return kg_atan_fold(x, t * p);
}
/* the same functions over N values in place, a step of all N at a time:
   their dependent chains interleave where one warp a scheduler runs them
   (a GEMM epilogue's), which a value at a time left waiting on each step */
template <int N> __device__ __forceinline__ void kg_gelu_n(float *x)
{
  float a[N], q[N];
  #pragma unroll
  for (int i = 0; i < N; i++) a[i] = kg_gelu_a(x[i]);
  #pragma unroll
  for (int i = 0; i < N; i++) { KG_GELU_Q(q[i], a[i]); }
  #pragma unroll
  for (int i = 0; i < N; i++) q[i] = kg_ex2(q[i]);
  #pragma unroll
  for (int i = 0; i < N; i++) x[i] = fmaf(-a[i], q[i], fmaxf(x[i], 0.0f));
}
template <int N> __device__ __forceinline__ void kg_sigmoid_n(float *x)
{
  float e[N];
  #pragma unroll
  for (int i = 0; i < N; i++) e[i] = kg_ex2(x[i] * -1.4426950408889634f);
  #pragma unroll
  for (int i = 0; i < N; i++) x[i] = kg_rcp(1.0f + e[i]);
}
template <int N> __device__ __forceinline__ void kg_tanh_n(float *x)
{
  float e[N];
  #pragma unroll
  for (int i = 0; i < N; i++) e[i] = kg_ex2(x[i] * 2.8853900817779268f);
  #pragma unroll
  for (int i = 0; i < N; i++) x[i] = 1.0f - 2.0f * kg_rcp(1.0f + e[i]);
}
template <int N> __device__ __forceinline__ void kg_atan_n(float *x)
{
  float t[N], p[N];
  #pragma unroll
  for (int i = 0; i < N; i++) { t[i] = kg_atan_t(x[i]); p[i] = t[i] * t[i]; }
  #pragma unroll
  for (int i = 0; i < N; i++) { const float s = p[i]; KG_ATAN_P(p[i], s); }
  #pragma unroll
  for (int i = 0; i < N; i++) x[i] = kg_atan_fold(x[i], t[i] * p[i]);
}
template <int N> __device__ __forceinline__ void kg_silu_n(float *x)
{
  float s[N];
  #pragma unroll
  for (int i = 0; i < N; i++) s[i] = x[i];
  kg_sigmoid_n<N>(s);
  #pragma unroll
  for (int i = 0; i < N; i++) x[i] *= s[i];
}
]]
  end
  return [[
#define KG_KERNEL __kernel
#define KG_GLOBAL __global
#define KG_RESTRICT restrict
#define KG_SHARED __local
#define KG_BARRIER() barrier(CLK_LOCAL_MEM_FENCE)
#define KG_TID(a) ((long)get_local_id(a))
#define KG_BID(a) ((long)get_group_id(a))
#define KG_BDIM(a) ((long)get_local_size(a))
#define KG_GDIM(a) ((long)get_num_groups(a))
#define KG_INF INFINITY
#define KG_NAN NAN
#define KG_GRID_DEP() ((void)0)
#define KG_NO_GRID_DEP() ((void)0)
float kg_bf16_to_float(ushort h) { return as_float(((uint)h) << 16); }
ushort kg_float_to_bf16(float x) {
  uint u = as_uint(x);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (ushort)((u >> 16) | 0x40u);
  u += 0x7fffu + ((u >> 16) & 1u);
  return (ushort)(u >> 16);
}
float kg_round_bf16(float x) { return kg_bf16_to_float(kg_float_to_bf16(x)); }
float kg_round_f16(float x) { ushort h; vstore_half_rte(x, 0, (__private half *)&h); return vload_half(0, (__private const half *)&h); }
]]
end

-- CUDA (sm_80+) helpers for f32 products on the tensor cores, 3xTF32:
-- <prefix>_mma(c, a, b) adds a.b on one mma.sync m16n8k8 (row-major A,
-- column-major B, f32 C), and <prefix>_split<N>(x, small) splits N floats
-- (as bits) into x rounded to TF32 (left in x) and the remainder, so that
-- a.b ~ a_small.b_big + a_big.b_small + a_big.b_big at f32's error.
-- <prefix>_mma3<M, N, LD>(c, a, as, b, bs, n) runs those three products
-- for an M x N block of tiles, c[i * LD + j] += a[i].b[j] for j < n, each
-- product over every tile before the next, so that consecutive MMAs never
-- wait on one accumulator.
function kg.tf32_helpers(prefix)
  return (([[
static __device__ __forceinline__ void @_mma(float *c, const unsigned *a, const unsigned *b)
{
  asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, "
               "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
               : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
/* x (f32 bits) -> big, x cut to TF32's 10 mantissa bits (in x), and small
   = x - big, exact.  Cut, not rounded: two instructions where
   cvt.rna.tf32.f32 takes five on sm_90 (its rounding and its checks for
   inf and NaN), on the hot path of every f32 tensor-core kernel; |small|
   < 2^-10 |x| instead of 2^-11, and the dropped small * small term stays
   under 2^-20 of each product.  NaN stays NaN (small is NaN for inf). */
template <int N> static __device__ __forceinline__ void @_split(unsigned *x, unsigned *small)
{
  #pragma unroll
  for (int i = 0; i < N; i++) {
    const unsigned big = x[i] & 0xffffe000u;
    small[i] = __float_as_uint(__uint_as_float(x[i]) - __uint_as_float(big));
    x[i] = big;
  }
}
template <int M, int N, int LD> static __device__ __forceinline__ void @_mma3(float (*c)[4],
    const unsigned (*a)[4], const unsigned (*as)[4], const unsigned (*b)[2], const unsigned (*bs)[2],
    int n = N)
{
  #pragma unroll
  for (int i = 0; i < M; i++)
    #pragma unroll
    for (int j = 0; j < N; j++) if (j < n) @_mma(c[i * LD + j], as[i], b[j]);
  #pragma unroll
  for (int i = 0; i < M; i++)
    #pragma unroll
    for (int j = 0; j < N; j++) if (j < n) @_mma(c[i * LD + j], a[i], bs[j]);
  #pragma unroll
  for (int i = 0; i < M; i++)
    #pragma unroll
    for (int j = 0; j < N; j++) if (j < n) @_mma(c[i * LD + j], a[i], b[j]);
}
]]):gsub("@_", prefix .. "_"))
end

-- CUDA (sm_90) helpers for the blocks of a thread-block cluster:
-- <prefix>_cluster_sync() is a barrier over the cluster's threads (release,
-- acquire: shared-memory writes before it are seen after it), <prefix>_peer(p,
-- rank) the address of p's counterpart in the shared memory of the
-- cluster's block `rank`, read by <prefix>_ld_peer (a float) and
-- <prefix>_ld_peer4 (a float4, 16-byte aligned).
function kg.cluster_helpers(prefix)
  return (([[
static __device__ __forceinline__ void @_cluster_sync(void)
{
  asm volatile("barrier.cluster.arrive.release.aligned;\n"
               "barrier.cluster.wait.acquire.aligned;\n" ::: "memory");
}
static __device__ __forceinline__ unsigned @_peer(const void *p, unsigned rank)
{
  unsigned a = (unsigned)__cvta_generic_to_shared(p), r;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;\n" : "=r"(r) : "r"(a), "r"(rank));
  return r;
}
static __device__ __forceinline__ float @_ld_peer(unsigned a)
{
  float v;
  asm volatile("ld.shared::cluster.f32 %0, [%1];\n" : "=f"(v) : "r"(a) : "memory");
  return v;
}
static __device__ __forceinline__ float4 @_ld_peer4(unsigned a)
{
  float4 v;
  asm volatile("ld.shared::cluster.v4.f32 {%0, %1, %2, %3}, [%4];\n"
               : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "r"(a) : "memory");
  return v;
}
]]):gsub("@_", prefix .. "_"))
end

-- "KG_GLOBAL const __half *KG_RESTRICT a0, ..." for spec.args
function kg.params(spec)
  local out = {}
  for _, a in ipairs(spec.args) do
    out[#out + 1] = string.format("KG_GLOBAL %s%s *KG_RESTRICT %s",
      a.output and "" or "const ", kg.ctype(spec, a.dtype), a.cname)
  end
  return table.concat(out, ",\n    ")
end

-- a C comment holding text with anything that could end it removed
function kg.comment(text)
  return "/* " .. tostring(text):gsub("%*/", "* /"):gsub("[^%g ]", "?") .. " */"
end

-- a float literal for x (exact)
function kg.float(x)
  local h = kg.hex(x)
  if h == "NAN" then return "KG_NAN" end
  if h == "INFINITY" then return "KG_INF" end
  if h == "(-INFINITY)" then return "(-KG_INF)" end
  return "((float)" .. h .. ")"
end

function kg.cdiv(a, b) return (a + b - 1) // b end

-- the smallest power of two not below n (1 for n <= 1): how far a block or
-- tile knob may outgrow the dimension it covers
function kg.np2(n)
  local p = 1
  while p < n do p = p * 2 end
  return p
end

-- C lines splitting row index `row` into the axes of shape other than
-- `axis` (1-based), `ind` the indent: returns the lines and, by axis, the
-- index expressions (ix<i>); axes of size 1 take none
function kg.split_row(shape, axis, row, ind)
  local outer = {}
  for i = 1, #shape do
    if i ~= axis and shape[i] ~= 1 then outer[#outer + 1] = i end
  end
  local lines, idx = {}, {}
  if #outer == 0 then return lines, idx end
  lines[#lines + 1] = string.format("%slong rr = %s;", ind, row)
  for k = #outer, 1, -1 do
    local i = outer[k]
    if k == 1 then
      lines[#lines + 1] = string.format("%slong ix%d = rr;", ind, i)
    else
      lines[#lines + 1] = string.format("%slong ix%d = rr %% %dL; rr /= %dL;",
        ind, i, shape[i], shape[i])
    end
    idx[i] = "ix" .. i
  end
  return lines, idx
end

-- the CUDA architecture's number (90 for sm_90), 0 for any other target
function kg.sm(spec)
  return tonumber((spec.arch or ""):match("^sm_(%d+)")) or 0
end

-- elementwise formulas, in float
local unary = {
  neg = "(-%s)", exp = "exp(%s)", log = "log(%s)", sqrt = "sqrt(%s)",
  rsqrt = "rsqrt(%s)", abs = "fabs(%s)", tanh = "tanh(%s)",
  sigmoid = "(1.0f / (1.0f + exp(-(%s))))", relu = "fmax(%s, 0.0f)",
  silu = "((%s) / (1.0f + exp(-(%s))))", atan = "atan(%s)",
  softsign = "((%s) / (1.0f + fabs(%s)))", erf = "erf(%s)",
  dropout = "(%s)",
}
local cuda_fn = { exp = "expf", log = "logf", sqrt = "sqrtf", rsqrt = "rsqrtf",
  fabs = "fabsf", tanh = "tanhf", fmax = "fmaxf", fmin = "fminf", atan = "atanf",
  erf = "erff", pow = "powf" }

-- does a kernel take the fast GELU, sigmoid, tanh and atan of the CUDA
-- prelude?  Where every result it stores is f16 or bf16: their error
-- (within 6.2e-6) is far below a 16-bit store's, and an f32 result keeps
-- the exact ones.
function kg.fastmath(spec)
  if spec.backend ~= "cuda" then return false end
  for _, o in ipairs(spec.outputs) do
    if o.dtype ~= "f16" and o.dtype ~= "bf16" then return false end
  end
  return true
end

local fast_unary = { sigmoid = "kg_sigmoid_f(%s)", tanh = "kg_tanh_f(%s)",
  silu = "((%s) * kg_sigmoid_f(%s))", atan = "kg_atan_f(%s)" }

-- C expression of unary op `op` on float expression x
function kg.unary(spec, op, x, attrs)
  local f
  if kg.fastmath(spec) and (fast_unary[op] or
      op == "gelu" and (attrs.approximate or "none") ~= "tanh") then
    f = fast_unary[op] or "kg_gelu_f(%s)"
  elseif op == "gelu" then
    if (attrs.approximate or "none") == "tanh" then
      f = "(0.5f * (%s) * (1.0f + tanh(0.7978845608028654f * ((%s) + 0.044715f * (%s) * (%s) * (%s)))))"
    else
      f = "(0.5f * (%s) * (1.0f + erf((%s) * 0.7071067811865476f)))"
    end
  elseif op == "leaky_relu" then
    f = "((%s) >= 0.0f ? (%s) : " .. kg.float(attrs.negative_slope or 0.01) .. " * (%s))"
  elseif op == "cast" then
    local dt = attrs.dtype
    if dt == "bool" then f = "((%s) != 0.0f ? 1.0f : 0.0f)"
    elseif dt == "i32" then f = "trunc(%s)"
    elseif dt == "f16" then f = "kg_round_f16(%s)"
    elseif dt == "bf16" then f = "kg_round_bf16(%s)"
    else f = "(%s)" end
  else
    f = unary[op]
  end
  if not f then fail("kg.unary: op %s", tostring(op)) end
  local e = f:gsub("%%s", function() return x end)
  if spec.backend == "cuda" then
    e = e:gsub("(%a+)%(", function(name)
      return (cuda_fn[name] or name) .. "("
    end)
  end
  return e
end

-- a statement applying unary op `op` in place to the n floats of array x a
-- step of all n at a time (kg_gelu_n, ...), or nil where the op has no such
-- form (then kg.unary, a value at a time)
function kg.unary_n(spec, op, x, n, attrs)
  if not kg.fastmath(spec) then return nil end
  if op == "gelu" and (attrs and attrs.approximate or "none") == "tanh" then return nil end
  if op ~= "gelu" and not fast_unary[op] then return nil end
  return string.format("kg_%s_n<%s>(%s);", op, tostring(n), x)
end

local binary = {
  add = "((%s) + (%s))", sub = "((%s) - (%s))", mul = "((%s) * (%s))",
  div = "((%s) / (%s))", maximum = "kg_max(%s, %s)", minimum = "kg_min(%s, %s)",
  pow = "pow(%s, %s)",
}

function kg.binary(spec, op, a, b)
  local f = binary[op]
  if not f then fail("kg.binary: op %s", tostring(op)) end
  local args = { a, b }
  local i = 0
  local e = f:gsub("%%s", function() i = i + 1; return args[i] end)
  if spec.backend == "cuda" then
    e = e:gsub("(%a+)%(", function(name) return (cuda_fn[name] or name) .. "(" end)
  end
  return e
end

-- NaN-propagating max/min (torch.maximum/minimum), for kg.binary
function kg.minmax(spec)
  local q = spec.backend == "cuda" and "__device__ __forceinline__ " or ""
  return q .. "float kg_max(float a, float b) { return (a != a || b != b) ? a + b : (a > b ? a : b); }\n" ..
         q .. "float kg_min(float a, float b) { return (a != a || b != b) ? a + b : (a < b ? a : b); }\n"
end

-- Σ idx[i] * strides[i] + offset, leaving out axes of size 1 (broadcast)
function kg.offset(arg, idx)
  local terms = {}
  if arg.offset ~= 0 then terms[#terms + 1] = tostring(arg.offset) end
  for i = 1, arg.rank do
    if arg.shape[i] ~= 1 then
      local s = arg.strides[i]
      terms[#terms + 1] = s == 1 and idx[i] or ("(" .. idx[i] .. ") * " .. s .. "L")
    end
  end
  if #terms == 0 then return "0" end
  return table.concat(terms, " + ")
end

-- the number of elements of a shape
function kg.numel(shape)
  local n = 1
  for _, d in ipairs(shape) do n = n * d end
  return n
end

-- offset + Σ idx[i] * stride[i] as a long expression; an index that is nil
-- or "0" leaves its axis out, as does an axis of size 1 (broadcast)
function kg.offsets(arg, idx)
  local terms = {}
  if arg.offset ~= 0 then terms[#terms + 1] = tostring(arg.offset) .. "L" end
  for i = 1, arg.rank do
    local e = idx[i]
    if arg.shape[i] ~= 1 and e and e ~= "0" then
      local s = arg.strides[i]
      terms[#terms + 1] = s == 1 and ("(long)(" .. e .. ")") or
        ("(long)(" .. e .. ") * " .. s .. "L")
    end
  end
  if #terms == 0 then return "0L" end
  return table.concat(terms, " + ")
end

-- the kernel argument behind spec value id vid (nil when none: an interior
-- value, an absent optional tensor)
function kg.argof(spec, vid)
  local v = vid and spec.values[vid]
  return v and v.arg and spec.args[v.arg] or nil
end

-- Is the kernel one op, or one op and a transpose of its result (the
-- planner gives a contraction or a norm the transpose that follows it)?
function kg.one_op(spec)
  return #spec.nodes == 1 or (#spec.nodes == 2 and spec.nodes[2].op == "transpose")
end

-- The argument holding node n's first result, as n sees it.  A kernel may
-- end in a transpose of that result (kg.one_op), so that it writes in the
-- order its reader wants: the result is then the transpose's argument with
-- the two axes swapped back, so that n's index (i, ..., j, ...) addresses
-- it.  nil when neither is an argument.
function kg.result_arg(spec, n)
  local a = kg.argof(spec, n.results[1])
  if a then return a end
  local t = spec.nodes[#spec.nodes]
  if #spec.nodes < 2 or t.op ~= "transpose" or t.args[1] ~= n.results[1] then return nil end
  local y = kg.argof(spec, t.results[1])
  if not y then return nil end
  return kg.swap_axes(y, t.attrs.dim0 + 1, t.attrs.dim1 + 1)
end

-- argument a seen with its axes d0 and d1 (1-based) swapped: the same
-- memory, as a transposed view
function kg.swap_axes(a, d0, d1)
  local shape, strides = {}, {}
  for i = 1, a.rank do shape[i], strides[i] = a.shape[i], a.strides[i] end
  shape[d0], shape[d1] = a.shape[d1], a.shape[d0]
  strides[d0], strides[d1] = a.strides[d1], a.strides[d0]
  local v = {}
  for k, x in pairs(a) do v[k] = x end
  v.shape, v.strides, v.contiguous, v.transposed = shape, strides, false, true
  return v
end

-- arg seen with row-major strides and no offset (a kernel's outputs are
-- contiguous)
function kg.contiguous(arg)
  local st, s = {}, 1
  for i = arg.rank, 1, -1 do st[i] = s; s = s * arg.shape[i] end
  return { cname = arg.cname, dtype = arg.dtype, shape = arg.shape, rank = arg.rank,
           strides = st, offset = 0, index = arg.index, numel = arg.numel }
end

return kg
