-- templates/sdpa.lua -- scaled dot-product attention, flash style.
--
--   out[b.., i, :] = sum_j softmax_j(q[b.., i, :] . k[b.., j, :] * scale + mask) v[b.., j, :]
--
-- One pass over the keys with an online softmax: a running max m, a running
-- sum l and an accumulator rescaled by exp(m_old - m_new) whenever the max
-- grows; the L x S score matrix is never stored, only one BLOCK_M x BLOCK_N
-- tile of it at a time.
--
-- Kernels it implements:
--   * the fused pattern "sdpa" (patterns/sdpa.pat, no mask) and its variant
--     "sdpa_keypad" (patterns/sdpa_keypad.pat): mask is a bool [B, S]
--     key-padding mask, TRUE on padding keys, whose score becomes the
--     masked_fill value (-inf);
--   * the generic op sdpa(q, k, v, mask?, scale?, causal): a bool mask is
--     TRUE where the key takes part (PyTorch's attn_mask), a float mask is
--     added to the scores; either broadcasts to [batch.., L, S]; causal
--     masks key j > query i; scale defaults to 1/sqrt(D).
-- A query row in which every key is masked gives NaN (0/0), as the
-- reference's two-pass softmax of all -inf does; a row with at least one
-- valid key never evaluates exp(-inf - -inf).
--
-- Operands q [.., L, D], k [.., S, D], v [.., S, E] are read through their
-- strides and offsets (views of a [B, L, H, D] projection cost nothing); the
-- mask through its strides with size-1 axes broadcast; out [.., L, E] too.
--
-- Design knob `path`:
--   "mma"  CUDA: FlashAttention-2 style.  A block of WARPS warps
--          owns BLOCK_M query rows (BLOCK_M / WARPS per warp, in m16 tiles);
--          Q stays in shared memory, K and V tiles of BLOCK_N keys are
--          staged with cp.async (when rows are 16-byte aligned; plain loads
--          otherwise) in a single buffer each, the V load overlapping
--          Q.K^T and the next K load overlapping P.V.  Q.K^T and P.V run on
--          tensor cores with fp32 accumulation; the softmax is in
--          registers in the log2 domain (ex2.approx), row statistics
--          reduced across the quad with shuffles.  f16/bf16: mma.sync
--          m16n8k16, operands through ldmatrix (V through .trans), P
--          converted in registers to the A operand of P.V; D and E
--          zero-padded to multiples of 16.  f32: 3xTF32 on m16n8k8 (each
--          operand split into its TF32 rounding and the remainder, three
--          products), D and E padded to multiples of 8.  In each k8 step
--          k = t and t + 4 are taken as the head-dim pair (2t, 2t + 1) for
--          Q.K^T, so Q and K fragments are 8-byte loads, and as keys 2t
--          and 2t + 1 for P.V, which is exactly where the score
--          accumulators hold them: P needs no shuffle, V is read by scalar
--          loads at a pitch that keeps them conflict-free.
--          SPLIT (sm_90): the keys are split over the SPLIT blocks of a
--          thread-block cluster; ranks 1.. leave their row max, partial
--          sums and accumulators in shared memory and rank 0 rescales them
--          to the common max, adds them through the cluster's distributed
--          shared memory and writes the output.  For few query blocks
--          (one sequence, few heads), where the blocks alone leave SMs idle.
--   "simt" CUDA and OpenCL, any float dtype, f32 math: a work-group of
--          32*WARPS work-items owns BLOCK_M query rows; Q, the K tile and
--          then the V tile, and the BLOCK_M x BLOCK_N score tile are staged
--          in local memory; each work-item keeps a slice of the BLOCK_M x E
--          accumulator in registers.
-- Tuning: BLOCK_M (query rows per block), BLOCK_N (keys per tile), WARPS,
-- SPLIT (blocks per cluster sharing the keys).
-- Constraints: tiles of at least twice L or S only waste work (16 is always
-- allowed); mma: CUDA sm_80+, BLOCK_M a multiple of 16 * WARPS
-- with at most 2 m16 tiles per warp, head dims up to 256, at most 192 fp32
-- accumulator registers per thread (O and S tiles), Q + K + V tiles within
-- spec.limits.smem (dynamic shared memory); SPLIT > 1 only on sm_90, with
-- at least 2 key tiles per block and the split grid within 4 blocks per SM
-- (spec.limits.units); simt: SPLIT 1, BLOCK_M <= threads, at
-- most 64 accumulators per thread, no idle work-items, local memory within
-- spec.limits.smem (48 KiB of static shared memory on CUDA; 32 KiB on
-- OpenCL leaves head dim 192 in f32 at BLOCK_M = BLOCK_N = 16).
-- Launch: one block (SPLIT blocks on the mma path) per (BLOCK_M query rows,
-- batch index), the query blocks of one batch index adjacent so their K/V
-- tiles share the L2.

local T = {
  name = "sdpa",
  backends = { "cuda", "opencl" },
  design = { path = { "mma", "simt" } },
  -- values in order of preference: the first config that passes the
  -- constraints is the default of a generated file (kgen gen), so it should
  -- be a good one untuned (BLOCK_M 128, BLOCK_N 64, 4 warps on the mma path
  -- for long sequences: 340 TFLOP/s at B=4 H=16 T=4096 D=128 f16 on H200)
  tuning = {
    BLOCK_M = { 128, 64, 32, 16 },
    BLOCK_N = { 64, 128, 32, 16 },
    WARPS = { 4, 8, 2, 1 },
    SPLIT = { 1, 2, 4 },       -- mma on sm_90: blocks of a cluster sharing the keys
  },
}

local LOG2E = 1.4426950408889634
local NEG_INF = -math.huge
local CUDA_STATIC_SMEM = 48 * 1024       -- static __shared__ per block

-- ---- what the kernel computes --------------------------------------------

local function find_node(spec, op)
  for _, n in ipairs(spec.nodes or {}) do
    if n.op == op then return n end
  end
  return nil
end

local function arg_of(spec, id)
  if not id then return nil end
  local val = spec.values[id]
  if not val or not val.arg then return nil end
  return spec.args[val.arg]
end

local function round_up(x, m) return (x + m - 1) // m * m end

-- The attention problem of a spec: operands, mask mode, scale, shapes, and
-- for each operand how the index (batch.., row, col) maps onto its axes.
-- Returns nil, why when the kernel is not one this template knows.
local function analyse(spec)
  local I = {}
  if spec.kind == "fused" then
    if spec.pattern ~= "sdpa" then
      return nil, "pattern " .. tostring(spec.pattern) .. " is not sdpa"
    end
    local b = spec.bind or {}
    I.q, I.k, I.v, I.out, I.mask = b.q, b.k, b.v, b.out, b.mask
    if I.mask then
      I.mode = "keypad"                      -- true = padding = fill
      local mf = find_node(spec, "masked_fill")
      I.fill = (mf and mf.attrs.value) or NEG_INF
    end
    I.scale = spec.params and spec.params.scale
    if type(I.scale) ~= "number" then return nil, "no scale param bound" end
    I.causal = false
  elseif spec.kind == "generic" then
    local n = find_node(spec, "sdpa")
    if not n then return nil, "no sdpa node" end
    I.q, I.k, I.v = arg_of(spec, n.args[1]), arg_of(spec, n.args[2]), arg_of(spec, n.args[3])
    I.out = arg_of(spec, n.results[1])
    if n.args[4] then
      I.mask = arg_of(spec, n.args[4])
      if not I.mask then return nil, "the mask is not a kernel argument" end
      I.mode = I.mask.dtype == "bool" and "keep" or "add"
    end
    I.causal = n.attrs.causal == true
    I.scale = n.attrs.scale
  else
    return nil, "kind " .. tostring(spec.kind)
  end
  if not (I.q and I.k and I.v and I.out) then
    return nil, "q, k, v or the result is not a kernel argument"
  end
  local r = I.q.rank
  if r < 2 or I.k.rank ~= r or I.v.rank ~= r or I.out.rank ~= r then
    return nil, "q, k, v and the result need one rank >= 2"
  end
  I.nb = r - 2
  I.L, I.D = I.q.shape[r - 1], I.q.shape[r]
  I.S, I.E = I.k.shape[r - 1], I.v.shape[r]
  if I.k.shape[r] ~= I.D or I.v.shape[r - 1] ~= I.S or
     I.out.shape[r - 1] ~= I.L or I.out.shape[r] ~= I.E then
    return nil, "q, k, v and the result do not agree"
  end
  I.scale = I.scale or 1 / math.sqrt(I.D)
  I.bshape, I.nbatch = {}, 1
  for p = 1, I.nb do
    I.bshape[p] = I.out.shape[p]
    I.nbatch = I.nbatch * I.out.shape[p]
  end
  I.dtype = I.q.dtype
  if I.k.dtype ~= I.dtype or I.v.dtype ~= I.dtype then
    return nil, "q, k and v differ in dtype"
  end
  -- index positions 1..nb+2 = (batch.., row, col) -> axis of each operand
  local ident = {}
  for p = 1, r do ident[p] = p end
  I.qmap, I.kmap, I.vmap, I.omap = ident, ident, ident, ident
  if I.mask then
    local m = I.mask
    I.mmap = {}
    if I.mode == "keypad" then
      if m.rank ~= 2 or I.nb < 1 then return nil, "key-padding mask is not [B, S]" end
      I.mmap[1], I.mmap[r] = 1, 2
    else
      if m.rank > r then return nil, "the mask has more axes than the scores" end
      for p = 1, r do
        local a = p - (r - m.rank)
        if a >= 1 then I.mmap[p] = a end
      end
    end
  end
  return I
end

-- The base offset (C, in the batch indices sd_b1..), and the strides of the
-- row and column positions of operand `a` seen through map.  Size-1 axes
-- broadcast (stride 0).
local function layout(I, a, map)
  local terms = {}
  if a.offset ~= 0 then terms[#terms + 1] = a.offset .. "L" end
  for p = 1, I.nb do
    local ax = map[p]
    if ax and a.shape[ax] ~= 1 then
      terms[#terms + 1] = string.format("sd_b%d * %dL", p, a.strides[ax])
    end
  end
  local function st(p)
    local ax = map[p]
    if ax and a.shape[ax] ~= 1 then return a.strides[ax] end
    return 0
  end
  local base = #terms > 0 and table.concat(terms, " + ") or "0L"
  return base, st(I.nb + 1), st(I.nb + 2)
end

-- Can rows of `a` (ncols columns) be copied in 16-byte chunks of `w`
-- elements?  Column stride 1, and the offset and every other stride a
-- multiple of w (the base pointer is assumed 16-byte aligned).
local function rows_aligned(I, a, map, ncols, w)
  if ncols % w ~= 0 or a.offset % w ~= 0 then return false end
  local _, rs, cs = layout(I, a, map)
  if cs ~= 1 or rs % w ~= 0 then return false end
  for p = 1, I.nb do
    local ax = map[p]
    if ax and a.shape[ax] ~= 1 and a.strides[ax] % w ~= 0 then return false end
  end
  return true
end

-- C lines: the batch indices sd_bP of block-batch `bat`, for the batch
-- positions P of size > 1 (size-1 positions are never referenced)
local function batch_code(I, ind)
  local ps = {}
  for p = 1, I.nb do
    if I.bshape[p] > 1 then ps[#ps + 1] = p end
  end
  if #ps == 0 then return ind .. "(void)bat;" end
  if #ps == 1 then return string.format("%sconst long sd_b%d = bat;", ind, ps[1]) end
  local out = { ind .. "long sd_rest = bat;" }
  for x = #ps, 2, -1 do
    local p, n = ps[x], I.bshape[ps[x]]
    out[#out + 1] = string.format("%sconst long sd_b%d = sd_rest %% %dL; sd_rest /= %dL;",
      ind, p, n, n)
  end
  out[#out + 1] = string.format("%sconst long sd_b%d = sd_rest;", ind, ps[1])
  return table.concat(out, "\n")
end

-- C statements that mask score `x` (a float lvalue) of query row `i` and key
-- `j` (int expressions, j < S); `lg`: the scores are in log2 units.
local function mask_code(spec, I, x, i, j, lg)
  local out = {}
  local f = lg and LOG2E or 1
  if I.mask then
    local m = I.mask
    local idx = "sd_mb"
    if I.mrs ~= 0 then
      -- rows past L (a partial query block) read row L-1: never out of bounds
      idx = idx .. string.format(" + (long)(%s < %d ? %s : %d) * %dL", i, I.L, i, I.L - 1, I.mrs)
    end
    if I.mcs ~= 0 then idx = idx .. string.format(" + (long)(%s) * %dL", j, I.mcs) end
    if I.mode == "add" then
      local v = kg.load(spec, m.dtype, m.cname, idx)
      out[#out + 1] = lg and string.format("%s += %s * %s;", x, v, kg.float(LOG2E))
                         or string.format("%s += %s;", x, v)
    elseif I.mode == "keep" then
      out[#out + 1] = string.format("if (%s[%s] == 0) %s = -KG_INF;", m.cname, idx, x)
    else
      local fill = I.fill == NEG_INF and "(-KG_INF)" or kg.float(I.fill * f)
      out[#out + 1] = string.format("if (%s[%s] != 0) %s = %s;", m.cname, idx, x, fill)
    end
  end
  if I.causal then
    out[#out + 1] = string.format("if ((%s) > (%s)) %s = -KG_INF;", j, i, x)
  end
  return table.concat(out, " ")
end

-- ---- the space --------------------------------------------------------------

function T.supports(spec)
  local I, why = analyse(spec)
  if not I then return false, why end
  if I.dtype ~= "f16" and I.dtype ~= "bf16" and I.dtype ~= "f32" then
    return false, "dtype " .. tostring(I.dtype)
  end
  if I.mask and I.mode == "add" and I.mask.dtype ~= "f32" and
     I.mask.dtype ~= "f16" and I.mask.dtype ~= "bf16" then
    return false, "additive mask of dtype " .. tostring(I.mask.dtype)
  end
  return true
end

-- the head dims padded to the MMA's k (16 for f16/bf16, 8 for tf32)
local function mma_dims(I)
  local k = I.dtype == "f32" and 8 or 16
  return round_up(I.D, k), round_up(I.E, k)
end

-- the row pitches (elements) of the Q/K tiles and the V tile.  f16/bf16:
-- 16 bytes of padding, so ldmatrix's 8 rows fall on distinct banks.  f32:
-- Q and K are read as 8-byte (d, d+1) pairs, row g of a half-warp on bank
-- 8g mod 32 (pitch 8 mod 16); V by scalar loads of rows 2t and 2t+1 and
-- column g, conflict-free at a pitch of an odd multiple of 4.
local function mma_pitch(I)
  local DP, EP = mma_dims(I)
  if I.dtype == "f32" then return round_up(I.D, 16) + 8, EP + 4 end
  return DP + 8, EP + 8
end

local function mma_smem(I, cfg)
  local qst, vst = mma_pitch(I)
  local size = I.dtype == "f32" and 4 or 2
  local smem = size * (cfg.BLOCK_M * qst + cfg.BLOCK_N * qst + cfg.BLOCK_N * vst)
  if cfg.SPLIT > 1 then
    -- the partial results a split leaves for rank 0: per query row its
    -- max, sum (4 per quad) and the E-wide accumulator, as f32
    local _, EP = mma_dims(I)
    smem = math.max(smem, 4 * cfg.BLOCK_M * (EP + 8))
  end
  return smem
end

local function simt_widths(I)
  local kvw = math.max(I.D, I.E)
  if kvw % 2 == 0 then kvw = kvw + 1 end   -- odd: key-strided reads spread over banks
  return I.D, kvw
end

local function simt_smem(I, cfg)
  local qw, kvw = simt_widths(I)
  return 4 * (cfg.BLOCK_M * qw + cfg.BLOCK_N * kvw + cfg.BLOCK_M * (cfg.BLOCK_N + 1) + 3 * cfg.BLOCK_M)
end

function T.constraints(spec, cfg)
  local I, why = analyse(spec)
  if not I then return false, why end
  local threads = 32 * cfg.WARPS
  if threads > spec.limits.threads then return false, "more threads than the device allows" end
  -- tiles much larger than the problem only waste work
  if cfg.BLOCK_M > 16 and cfg.BLOCK_M >= 2 * I.L then return false, "BLOCK_M over twice L" end
  if cfg.BLOCK_N > 16 and cfg.BLOCK_N >= 2 * I.S then return false, "BLOCK_N over twice S" end
  if cfg.path == "mma" then
    if spec.backend ~= "cuda" then return false, "mma needs CUDA" end
    local arch = kg.sm(spec)
    if arch < 80 then return false, "mma path needs sm_80 or newer" end
    if cfg.SPLIT > 1 then
      -- the key splits combine through the distributed shared memory of a cluster
      if arch < 90 then return false, "SPLIT needs sm_90's clusters" end
      if kg.cdiv(I.S, cfg.BLOCK_N) < 2 * cfg.SPLIT then
        return false, "SPLIT leaves a block fewer than 2 key tiles"
      end
      local blocks = kg.cdiv(I.L, cfg.BLOCK_M) * I.nbatch
      if blocks * cfg.SPLIT > 4 * (spec.limits.units or 80) then
        return false, "SPLIT where the query blocks alone fill the SMs"
      end
    end
    if cfg.BLOCK_M % (16 * cfg.WARPS) ~= 0 then return false, "BLOCK_M not a multiple of 16 * WARPS" end
    local mt = cfg.BLOCK_M // (16 * cfg.WARPS)
    if mt > 2 then return false, "more than 2 m16 tiles per warp" end
    local DP, EP = mma_dims(I)
    if DP > 256 or EP > 256 then return false, "head dim over 256" end
    -- fp32 registers per thread: the O accumulator and the score tile
    if mt * (EP + cfg.BLOCK_N) // 2 > 192 then return false, "too many accumulator registers" end
    if mma_smem(I, cfg) > spec.limits.smem then return false, "shared memory over the limit" end
    return true
  end
  -- simt
  if cfg.SPLIT ~= 1 then return false, "SPLIT is an mma knob" end
  if cfg.BLOCK_M > threads then return false, "BLOCK_M over the threads of a block" end
  local acc = kg.cdiv(cfg.BLOCK_M * I.E, threads)
  if acc > 64 then return false, "over 64 accumulators per thread" end
  if threads > cfg.BLOCK_M * math.max(I.E, cfg.BLOCK_N) then return false, "threads without work" end
  local lim = spec.limits.smem
  if spec.backend == "cuda" and lim > CUDA_STATIC_SMEM then lim = CUDA_STATIC_SMEM end
  if simt_smem(I, cfg) > lim then return false, "local memory over the limit" end
  return true
end

function T.launch(spec, cfg)
  local I = assert(analyse(spec))
  local blocks = kg.cdiv(I.L, cfg.BLOCK_M) * I.nbatch
  if cfg.path == "mma" then blocks = blocks * cfg.SPLIT end
  if blocks > 2147483647 then kg.fail("sdpa: %d blocks are too many", blocks) end
  return { grid = { blocks, 1, 1 }, block = { 32 * cfg.WARPS, 1, 1 },
           smem = cfg.path == "mma" and mma_smem(I, cfg) or 0 }
end

-- ---- emitting ------------------------------------------------------------------

-- "@NAME" in text replaced from vars (every name must be known)
local function subst(text, vars)
  return (text:gsub("@([%u_][%u%d_]*)", function(name)
    local v = vars[name]
    if v == nil then kg.fail("sdpa: no value for @%s", name) end
    return tostring(v)
  end))
end

-- a #line directive (from kg.line() called on the line holding "[[") and
-- the block of C that starts on the next template line
local function block(line, text, vars)
  line = line:gsub("#line (%d+)", function(n) return "#line " .. (tonumber(n) + 1) end)
  return line .. (vars and subst(text, vars) or text)
end

-- operand layouts, shared by both paths
local function operands(I)
  I.qb, I.qrs, I.qcs = layout(I, I.q, I.qmap)
  I.kb, I.krs, I.kcs = layout(I, I.k, I.kmap)
  I.vb, I.vrs, I.vcs = layout(I, I.v, I.vmap)
  I.ob, I.ors, I.ocs = layout(I, I.out, I.omap)
  if I.mask then I.mb, I.mrs, I.mcs = layout(I, I.mask, I.mmap) end
end

local function bases(I, ind)
  local out = { batch_code(I, ind) }
  out[#out + 1] = string.format("%sconst long sd_qb = %s, sd_kb = %s, sd_vb = %s, sd_ob = %s;",
    ind, I.qb, I.kb, I.vb, I.ob)
  if I.mask then out[#out + 1] = string.format("%sconst long sd_mb = %s;", ind, I.mb) end
  return table.concat(out, "\n")
end

local function nend_expr(I)
  if I.causal then
    return string.format("(m0 + BLOCK_M < %d ? m0 + BLOCK_M : %d)", I.S, I.S)
  end
  return tostring(I.S)
end

-- the simt path ---------------------------------------------------------------

local function emit_simt(spec, I)
  local cuda = spec.backend == "cuda"
  local qw, kvw = simt_widths(I)
  local fmax, exp = cuda and "fmaxf" or "fmax", cuda and "expf" or "exp"
  local vars = {
    KERNEL = spec.kernel, PARAMS = kg.params(spec),
    L = I.L, S = I.S, D = I.D, E = I.E, QW = qw, KVW = kvw,
    SCALE = kg.float(I.scale), FMAX = fmax, EXP = exp, NEND = nend_expr(I),
    BASES = bases(I, "  "),
    LOADQ = kg.load(spec, I.dtype, I.q.cname,
      string.format("sd_qb + (long)i * %dL + (long)c * %dL", I.qrs, I.qcs)),
    LOADK = kg.load(spec, I.dtype, I.k.cname,
      string.format("sd_kb + (long)j * %dL + (long)c * %dL", I.krs, I.kcs)),
    LOADV = kg.load(spec, I.dtype, I.v.cname,
      string.format("sd_vb + (long)j * %dL + (long)c * %dL", I.vrs, I.vcs)),
    MASK = mask_code(spec, I, "s", "i", "j", false),
    STORE = kg.store(spec, I.out.dtype, I.out.cname,
      string.format("sd_ob + (long)i * %dL + (long)e * %dL", I.ors, I.ocs),
      "l > 0.0f ? acc[a] / l : KG_NAN"),
    QUAL = cuda and "__launch_bounds__(SD_THREADS)"
                 or "__attribute__((reqd_work_group_size(SD_THREADS, 1, 1)))",
  }
  local src = {}
  src[#src + 1] = block(kg.line(), [[
#define SD_THREADS (WARPS * 32)
#define SD_NMB ((@L + BLOCK_M - 1) / BLOCK_M)
#define SD_ACC ((BLOCK_M * @E + SD_THREADS - 1) / SD_THREADS)
#define SD_PW (BLOCK_N + 1)
]], vars)
  src[#src + 1] = subst(cuda and "KG_KERNEL void @QUAL @KERNEL(\n    @PARAMS)\n"
                             or "KG_KERNEL @QUAL void @KERNEL(\n    @PARAMS)\n", vars)
  src[#src + 1] = block(kg.line(), [[
{
  KG_GRID_DEP();
  KG_SHARED float sd_q[BLOCK_M * @QW];
  KG_SHARED float sd_kv[BLOCK_N * @KVW];
  KG_SHARED float sd_p[BLOCK_M * SD_PW];
  KG_SHARED float sd_m[BLOCK_M];
  KG_SHARED float sd_l[BLOCK_M];
  KG_SHARED float sd_a[BLOCK_M];
  const int tid = (int)KG_TID(0);
  const long blk = KG_BID(0);
  const int m0 = (int)(blk % SD_NMB) * BLOCK_M;
  const long bat = blk / SD_NMB;
]], vars)
  src[#src + 1] = vars.BASES .. "\n"
  src[#src + 1] = block(kg.line(), [[
  for (int x = tid; x < BLOCK_M * @D; x += SD_THREADS) {
    const int r = x / @D, c = x - r * @D, i = m0 + r;
    sd_q[r * @QW + c] = i < @L ? @LOADQ : 0.0f;
  }
  if (tid < BLOCK_M) { sd_m[tid] = -KG_INF; sd_l[tid] = 0.0f; }
  float acc[SD_ACC];
  for (int a = 0; a < SD_ACC; a++) acc[a] = 0.0f;
  const int nend = @NEND;
  for (int n0 = 0; n0 < nend; n0 += BLOCK_N) {
    KG_BARRIER();                 /* the last tile's P.V is done with sd_kv, sd_p */
    for (int x = tid; x < BLOCK_N * @D; x += SD_THREADS) {
      const int r = x / @D, c = x - r * @D, j = n0 + r;
      sd_kv[r * @KVW + c] = j < @S ? @LOADK : 0.0f;
    }
    KG_BARRIER();
    for (int x = tid; x < BLOCK_M * BLOCK_N; x += SD_THREADS) {
      const int r = x / BLOCK_N, c = x - r * BLOCK_N, i = m0 + r, j = n0 + c;
      float s = 0.0f;
      for (int d = 0; d < @D; d++) s += sd_q[r * @QW + d] * sd_kv[c * @KVW + d];
      s *= @SCALE;
      if (j >= @S) s = -KG_INF;
      else { @MASK }
      sd_p[r * SD_PW + c] = s;
      (void)i;
    }
    KG_BARRIER();                 /* scores done: sd_kv may take V */
    if (tid < BLOCK_M) {          /* online softmax, one row per work-item */
      const int r = tid;
      const float mo = sd_m[r];
      float mx = mo;
      for (int c = 0; c < BLOCK_N; c++) mx = @FMAX(mx, sd_p[r * SD_PW + c]);
      /* all -inf so far: p = exp(-inf - 0) = 0, never exp(-inf - -inf) */
      const float mu = mx == -KG_INF ? 0.0f : mx;
      const float alpha = @EXP(mo - mu);
      float sum = 0.0f;
      for (int c = 0; c < BLOCK_N; c++) {
        const float p = @EXP(sd_p[r * SD_PW + c] - mu);
        sd_p[r * SD_PW + c] = p;
        sum += p;
      }
      sd_m[r] = mx;
      sd_l[r] = sd_l[r] * alpha + sum;
      sd_a[r] = alpha;
    }
    for (int x = tid; x < BLOCK_N * @E; x += SD_THREADS) {
      const int r = x / @E, c = x - r * @E, j = n0 + r;
      sd_kv[r * @KVW + c] = j < @S ? @LOADV : 0.0f;
    }
    KG_BARRIER();
    for (int a = 0; a < SD_ACC; a++) {
      const int x = tid + a * SD_THREADS;
      if (x < BLOCK_M * @E) {
        const int r = x / @E, e = x - r * @E;
        float t = acc[a] * sd_a[r];
        for (int c = 0; c < BLOCK_N; c++) t += sd_p[r * SD_PW + c] * sd_kv[c * @KVW + e];
        acc[a] = t;
      }
    }
  }
  KG_BARRIER();
  for (int a = 0; a < SD_ACC; a++) {
    const int x = tid + a * SD_THREADS;
    const int r = x / @E, e = x - r * @E, i = m0 + r;
    if (x < BLOCK_M * @E && i < @L) {
      const float l = sd_l[r];    /* 0 when every key of the row is masked: NaN */
      @STORE
    }
  }
}
]], vars)
  return table.concat(src)
end

-- the mma path (CUDA) ----------------------------------------------------------

-- C code copying rows [row0, row0 + nrows) of operand `ptr` (base, row and
-- column strides) into shared memory `dst` (row pitch `pitch` elements), rows
-- at or past `limit` as zeros; 16-byte cp.async when `vec`.  Elements are
-- moved as their bits: unsigned short for f16/bf16, float for f32 (`f32`).
local function tile_copy(t)
  local ety = t.f32 and "float" or "unsigned short"
  if t.vec then
    local w = t.f32 and 4 or 8
    return block(kg.line(), [[
    for (int x = tid; x < @NROWS * @CH; x += SD_THREADS) {
      const int r = x / @CH, c = (x - r * @CH) * @W, gr = @ROW0 + r;
      const bool ok = gr < @LIMIT;
      const @ETY *src = (const @ETY *)@PTR + (ok ? @BASE + (long)gr * @RSL + c : 0L);
      sd_cp16(sd_saddr(@DST + r * @PITCH + c), src, ok ? 16 : 0);
    }
]], { NROWS = t.nrows, CH = t.ncols // w, W = w, ETY = ety, ROW0 = t.row0, LIMIT = t.limit,
      PTR = t.ptr, BASE = t.base, RSL = t.rs .. "L", DST = t.dst, PITCH = t.pitch })
  end
  return block(kg.line(), [[
    for (int x = tid; x < @NROWS * @NC; x += SD_THREADS) {
      const int r = x / @NC, c = x - r * @NC, gr = @ROW0 + r;
      @DST[r * @PITCH + c] = gr < @LIMIT ? ((const @ETY *)@PTR)[@BASE + (long)gr * @RSL + (long)c * @CSL] : (@ETY)0;
    }
]], { NROWS = t.nrows, NC = t.ncols, ETY = ety, ROW0 = t.row0, LIMIT = t.limit, PTR = t.ptr,
      BASE = t.base, RSL = t.rs .. "L", CSL = t.cs .. "L", DST = t.dst, PITCH = t.pitch })
end

local function emit_mma(spec, I)
  local DP, EP = mma_dims(I)
  local qst, vst = mma_pitch(I)
  local f32 = I.dtype == "f32"
  local bf = I.dtype == "bf16"
  local w = f32 and 4 or 8                 -- elements per 16 bytes
  local qvec = rows_aligned(I, I.q, I.qmap, I.D, w)
  local kvec = rows_aligned(I, I.k, I.kmap, I.D, w)
  local vvec = rows_aligned(I, I.v, I.vmap, I.E, w)
  -- pairs of output columns stored as one 32-bit (f32: 64-bit) word
  local opair = I.E % 2 == 0 and rows_aligned(I, I.out, I.omap, I.E, 2)
  local vars = {
    KERNEL = spec.kernel, PARAMS = kg.params(spec),
    L = I.L, S = I.S, D = I.D, E = I.E, DP = DP, EP = EP, QST = qst, VST = vst,
    ETY = f32 and "float" or "unsigned short",
    MMAT = bf and "bf16" or "f16",
    PAIR = f32 and "float2" or bf and "__nv_bfloat162" or "__half2",
    PACK = f32 and "make_float2" or bf and "__floats2bfloat162_rn" or "__floats2half2_rn",
    SCALE2 = kg.float(I.scale * LOG2E),
    NEND = nend_expr(I),
    CAUSAL = I.causal and 1 or 0,
    MASKED = I.mask and 1 or 0,
    MASK = mask_code(spec, I, "x", "i", "j", true),
    ORS = I.ors .. "L", OCS = I.ocs .. "L", OUT = I.out.cname,
    CLUSTER = kg.cluster_helpers("sd"),
  }
  local loadQ = tile_copy { vec = qvec, f32 = f32, nrows = "BLOCK_M", ncols = I.D, row0 = "m0",
    limit = I.L, ptr = I.q.cname, base = "sd_qb", rs = I.qrs, cs = I.qcs, dst = "sd_qs", pitch = qst }
  local loadK = tile_copy { vec = kvec, f32 = f32, nrows = "BLOCK_N", ncols = I.D, row0 = "kn0",
    limit = I.S, ptr = I.k.cname, base = "sd_kb", rs = I.krs, cs = I.kcs, dst = "sd_ks", pitch = qst }
  local loadV = tile_copy { vec = vvec, f32 = f32, nrows = "BLOCK_N", ncols = I.E, row0 = "n0",
    limit = I.S, ptr = I.v.cname, base = "sd_vb", rs = I.vrs, cs = I.vcs, dst = "sd_vs", pitch = vst }
  local store
  if opair then
    store = subst([[
          if (c < @E) *(@PAIR *)&@OUT[orow + c] = @PACK(o[mt][et][2 * h] * inv, o[mt][et][2 * h + 1] * inv);
]], vars)
  else
    store = subst([[
          if (c < @E) { @ST0 }
          if (c + 1 < @E) { @ST1 }
]], { E = I.E,
      ST0 = kg.store(spec, I.out.dtype, I.out.cname, "orow + (long)c * " .. vars.OCS,
                     "o[mt][et][2 * h] * inv"),
      ST1 = kg.store(spec, I.out.dtype, I.out.cname, "orow + (long)(c + 1) * " .. vars.OCS,
                     "o[mt][et][2 * h + 1] * inv") })
  end

  local src = {}
  local function add(s) src[#src + 1] = s end
  add(block(kg.line(), [[
#define SD_THREADS (WARPS * 32)
#define SD_WM (BLOCK_M / WARPS)            /* query rows per warp */
#define SD_MT (SD_WM / 16)                 /* m16 tiles per warp */
#define SD_NT (BLOCK_N / 8)                /* n8 tiles of scores */
#define SD_ET (@EP / 8)                    /* n8 tiles of the output */
#define SD_NMB ((@L + BLOCK_M - 1) / BLOCK_M)

static __device__ __forceinline__ unsigned sd_saddr(const void *p)
{
  return (unsigned)__cvta_generic_to_shared(p);
}
static __device__ __forceinline__ void sd_cp16(unsigned dst, const void *src, int bytes)
{
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" :: "r"(dst), "l"(src), "r"(bytes) : "memory");
}
static __device__ __forceinline__ void sd_cp_commit(void)
{
  asm volatile("cp.async.commit_group;\n" ::: "memory");
}
static __device__ __forceinline__ void sd_cp_wait_all(void)
{
  asm volatile("cp.async.wait_group 0;\n" ::: "memory");
}
]], vars))
  if f32 then
    add(kg.line() .. "\n" .. kg.tf32_helpers("sd"))
  else
    add(block(kg.line(), [[
static __device__ __forceinline__ void sd_ldsm4(unsigned addr, unsigned *r)
{
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr));
}
static __device__ __forceinline__ void sd_ldsm4t(unsigned addr, unsigned *r)
{
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr));
}
/* c += a . b on tensor cores: m16n8k16, row-major A, column-major B, f32 C */
static __device__ __forceinline__ void sd_mma(float *c, const unsigned *a, unsigned b0, unsigned b1)
{
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.@MMAT.@MMAT.f32 "
               "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
               : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
static __device__ __forceinline__ unsigned sd_pack(float lo, float hi)
{
  @PAIR h = @PACK(lo, hi);
  return *(unsigned *)&h;
}
]], vars))
  end
  add(block(kg.line(), [[
static __device__ __forceinline__ float sd_exp2(float x)
{
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}
#if SPLIT > 1
#define SD_CLUSTER __cluster_dims__(SPLIT, 1, 1)
@CLUSTER
#else
#define SD_CLUSTER
#endif

KG_KERNEL void __launch_bounds__(SD_THREADS) SD_CLUSTER @KERNEL(
    @PARAMS)
{
  KG_GRID_DEP();
  extern __shared__ __align__(16) @ETY sd_smem[];
  @ETY *sd_qs = sd_smem;                     /* [BLOCK_M][@QST] */
  @ETY *sd_ks = sd_qs + BLOCK_M * @QST;      /* [BLOCK_N][@QST] */
  @ETY *sd_vs = sd_ks + BLOCK_N * @QST;      /* [BLOCK_N][@VST] */
  const int tid = (int)threadIdx.x, warp = tid >> 5, lane = tid & 31;
  const int g = lane >> 2, t4 = lane & 3;
  const long blk = (long)blockIdx.x / SPLIT;
  const int m0 = (int)(blk % SD_NMB) * BLOCK_M;
  const long bat = blk / SD_NMB;
  /* the keys [nbeg, nend) of this block: SPLIT > 1 gives each block of a
     cluster a run of whole key tiles */
  const unsigned kr = (unsigned)(blockIdx.x % SPLIT);
  const int nall = @NEND;
  const int nchunk = ((nall + BLOCK_N - 1) / BLOCK_N + SPLIT - 1) / SPLIT * BLOCK_N;
  const int nbeg = (int)kr * nchunk;
  const int nend = nall - nbeg < nchunk ? nall : nbeg + nchunk;
]], vars))
  add(bases(I, "  "))
  add("\n")
  -- zero the padding columns of the head dims: loads never write them
  if DP > I.D then
    add(block(kg.line(), [[
  for (int x = tid; x < BLOCK_M * (@DP - @D); x += SD_THREADS)
    sd_qs[(x / (@DP - @D)) * @QST + @D + x % (@DP - @D)] = 0;
  for (int x = tid; x < BLOCK_N * (@DP - @D); x += SD_THREADS)
    sd_ks[(x / (@DP - @D)) * @QST + @D + x % (@DP - @D)] = 0;
]], vars))
  end
  if EP > I.E then
    add(block(kg.line(), [[
  for (int x = tid; x < BLOCK_N * (@EP - @E); x += SD_THREADS)
    sd_vs[(x / (@EP - @E)) * @VST + @E + x % (@EP - @E)] = 0;
]], vars))
  end
  add(block(kg.line(), [[
  {
    const int kn0 = nbeg;
]]))
  add(loadQ)
  add(loadK)
  add(block(kg.line(), [[
    sd_cp_commit();
  }
]]))
  if f32 then
    add(block(kg.line(), [[
  /* per-lane fragment pointers.  In each k8 step of Q.K^T, k = t and t + 4
     are the head-dim pair (2t, 2t + 1), the same for Q and K, so each is
     one 8-byte load: Q rows g (and g + 8), K row (key) g.  In P.V, k = t
     and t + 4 are keys 2t and 2t + 1, which is where the score
     accumulators hold them: V rows 2t and 2t + 1, column g. */
  const float *qp = sd_qs + (warp * SD_WM + g) * @QST + 2 * t4;
  const float *kp = sd_ks + g * @QST + 2 * t4;
  const float *vp = sd_vs + 2 * t4 * @VST + g;
]], vars))
  else
    add(block(kg.line(), [[
  /* per-lane ldmatrix addresses: Q and K as x4 (rows, 16 columns), V as x4.trans */
  const unsigned qa = sd_saddr(sd_qs + (warp * SD_WM + (lane & 15)) * @QST + (lane >> 4) * 8);
  const unsigned ka = sd_saddr(sd_ks + ((lane & 7) + ((lane >> 4) << 3)) * @QST + ((lane >> 3) & 1) * 8);
  const unsigned va = sd_saddr(sd_vs + (lane & 15) * @VST + (lane >> 4) * 8);
]], vars))
  end
  add(block(kg.line(), [[

  float o[SD_MT][SD_ET][4];
  float mrow[SD_MT][2], lrow[SD_MT][2];
#pragma unroll
  for (int mt = 0; mt < SD_MT; mt++) {
#pragma unroll
    for (int et = 0; et < SD_ET; et++)
      o[mt][et][0] = o[mt][et][1] = o[mt][et][2] = o[mt][et][3] = 0.0f;
    mrow[mt][0] = mrow[mt][1] = -KG_INF;
    lrow[mt][0] = lrow[mt][1] = 0.0f;
  }

  for (int n0 = nbeg; n0 < nend; n0 += BLOCK_N) {
    sd_cp_wait_all();
    __syncthreads();              /* K tile in; every warp done with the last V */
]], vars))
  add(loadV)
  add(block(kg.line(), [[
    sd_cp_commit();

    /* S = Q K^T */
    float s[SD_MT][SD_NT][4];
#pragma unroll
    for (int mt = 0; mt < SD_MT; mt++)
#pragma unroll
      for (int nt = 0; nt < SD_NT; nt++)
        s[mt][nt][0] = s[mt][nt][1] = s[mt][nt][2] = s[mt][nt][3] = 0.0f;
]]))
  if f32 then
    add(block(kg.line(), [[
#pragma unroll
    for (int ks = 0; ks < @DP / 8; ks++) {
      unsigned a[SD_MT][4], as[SD_MT][4], b[SD_NT][2], bs[SD_NT][2];
#pragma unroll
      for (int mt = 0; mt < SD_MT; mt++) {
        const float2 lo = *(const float2 *)(qp + mt * 16 * @QST + ks * 8);
        const float2 hi = *(const float2 *)(qp + (mt * 16 + 8) * @QST + ks * 8);
        a[mt][0] = __float_as_uint(lo.x);
        a[mt][1] = __float_as_uint(hi.x);
        a[mt][2] = __float_as_uint(lo.y);
        a[mt][3] = __float_as_uint(hi.y);
        sd_split<4>(a[mt], as[mt]);
      }
#pragma unroll
      for (int nt = 0; nt < SD_NT; nt++) {
        const float2 kv = *(const float2 *)(kp + nt * 8 * @QST + ks * 8);
        b[nt][0] = __float_as_uint(kv.x);
        b[nt][1] = __float_as_uint(kv.y);
        sd_split<2>(b[nt], bs[nt]);
      }
      sd_mma3<SD_MT, SD_NT, SD_NT>(s[0], a, as, b, bs);
    }
]], vars))
  else
    add(block(kg.line(), [[
#pragma unroll
    for (int ks = 0; ks < @DP / 16; ks++) {
      unsigned a[SD_MT][4];
#pragma unroll
      for (int mt = 0; mt < SD_MT; mt++)
        sd_ldsm4(qa + (unsigned)((mt * 16 * @QST + ks * 16) * 2), a[mt]);
#pragma unroll
      for (int np = 0; np < BLOCK_N / 16; np++) {
        unsigned b[4];
        sd_ldsm4(ka + (unsigned)((np * 16 * @QST + ks * 16) * 2), b);
#pragma unroll
        for (int mt = 0; mt < SD_MT; mt++) {
          sd_mma(s[mt][2 * np], a[mt], b[0], b[1]);
          sd_mma(s[mt][2 * np + 1], a[mt], b[2], b[3]);
        }
      }
    }
]], vars))
  end
  add(block(kg.line(), [[

    /* scale into log2 units; mask: keys past S, the mask, causal */
#pragma unroll
    for (int mt = 0; mt < SD_MT; mt++)
#pragma unroll
      for (int nt = 0; nt < SD_NT; nt++)
#pragma unroll
        for (int e = 0; e < 4; e++) s[mt][nt][e] *= @SCALE2;
    if (@MASKED || n0 + BLOCK_N > @S || (@CAUSAL && n0 + BLOCK_N - 1 > m0 + warp * SD_WM)) {
#pragma unroll
      for (int mt = 0; mt < SD_MT; mt++)
#pragma unroll
        for (int nt = 0; nt < SD_NT; nt++)
#pragma unroll
          for (int e = 0; e < 4; e++) {
            const int i = m0 + warp * SD_WM + mt * 16 + g + (e >> 1) * 8;
            const int j = n0 + nt * 8 + t4 * 2 + (e & 1);
            float x = s[mt][nt][e];
            if (j >= @S) x = -KG_INF;
            else { @MASK }
            s[mt][nt][e] = x;
            (void)i;
          }
    }

    sd_cp_wait_all();
    __syncthreads();              /* V tile in; every warp done with K */
    {
      const int kn0 = n0 + BLOCK_N;
      if (kn0 < nend) {
]], vars))
  add(loadK)
  add(block(kg.line(), [[
        sd_cp_commit();
      }
    }

    /* online softmax: rows g and g + 8 of each m16 tile; a quad holds a row */
#pragma unroll
    for (int mt = 0; mt < SD_MT; mt++)
#pragma unroll
      for (int h = 0; h < 2; h++) {
        float mx = mrow[mt][h];
#pragma unroll
        for (int nt = 0; nt < SD_NT; nt++)
          mx = fmaxf(mx, fmaxf(s[mt][nt][2 * h], s[mt][nt][2 * h + 1]));
        mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
        mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
        /* every key so far masked: subtract 0, so p = 2^-inf = 0, never NaN */
        const float mu = mx == -KG_INF ? 0.0f : mx;
        const float alpha = sd_exp2(mrow[mt][h] - mu);
        mrow[mt][h] = mx;
        float sum = 0.0f;
#pragma unroll
        for (int nt = 0; nt < SD_NT; nt++) {
          s[mt][nt][2 * h] = sd_exp2(s[mt][nt][2 * h] - mu);
          s[mt][nt][2 * h + 1] = sd_exp2(s[mt][nt][2 * h + 1] - mu);
          sum += s[mt][nt][2 * h] + s[mt][nt][2 * h + 1];
        }
        lrow[mt][h] = lrow[mt][h] * alpha + sum;
#pragma unroll
        for (int et = 0; et < SD_ET; et++) {
          o[mt][et][2 * h] *= alpha;
          o[mt][et][2 * h + 1] *= alpha;
        }
      }

]]))
  if f32 then
    -- V's B fragments are split in chunks of SD_EC output tiles, so that
    -- the three products of a chunk run over independent accumulators
    -- without holding all of a k8 step's V in registers
    add(block(kg.line(), [[
    /* O += P V, 3xTF32: the score accumulators of key tile kb are the A
       fragments of P as they stand (k = t, t + 4 are keys 2t, 2t + 1) */
#define SD_EC (SD_ET < 8 ? SD_ET : 8)
#pragma unroll
    for (int kb = 0; kb < SD_NT; kb++) {
      unsigned a[SD_MT][4], as[SD_MT][4];
#pragma unroll
      for (int mt = 0; mt < SD_MT; mt++) {
        a[mt][0] = __float_as_uint(s[mt][kb][0]);
        a[mt][1] = __float_as_uint(s[mt][kb][2]);
        a[mt][2] = __float_as_uint(s[mt][kb][1]);
        a[mt][3] = __float_as_uint(s[mt][kb][3]);
        sd_split<4>(a[mt], as[mt]);
      }
#pragma unroll
      for (int ec = 0; ec < SD_ET; ec += SD_EC) {
        unsigned b[SD_EC][2], bs[SD_EC][2];
#pragma unroll
        for (int e = 0; e < SD_EC; e++)
          if (ec + e < SD_ET) {
            b[e][0] = __float_as_uint(vp[kb * 8 * @VST + (ec + e) * 8]);
            b[e][1] = __float_as_uint(vp[(kb * 8 + 1) * @VST + (ec + e) * 8]);
            sd_split<2>(b[e], bs[e]);
          }
        sd_mma3<SD_MT, SD_EC, SD_ET>(o[0] + ec, a, as, b, bs, SD_ET - ec);
      }
    }
  }
]], vars))
  else
    add(block(kg.line(), [[
    /* O += P V: the score accumulators are the A fragments of P */
#pragma unroll
    for (int kb = 0; kb < BLOCK_N / 16; kb++) {
      unsigned a[SD_MT][4];
#pragma unroll
      for (int mt = 0; mt < SD_MT; mt++) {
        a[mt][0] = sd_pack(s[mt][2 * kb][0], s[mt][2 * kb][1]);
        a[mt][1] = sd_pack(s[mt][2 * kb][2], s[mt][2 * kb][3]);
        a[mt][2] = sd_pack(s[mt][2 * kb + 1][0], s[mt][2 * kb + 1][1]);
        a[mt][3] = sd_pack(s[mt][2 * kb + 1][2], s[mt][2 * kb + 1][3]);
      }
#pragma unroll
      for (int ep = 0; ep < @EP / 16; ep++) {
        unsigned b[4];
        sd_ldsm4t(va + (unsigned)((kb * 16 * @VST + ep * 16) * 2), b);
#pragma unroll
        for (int mt = 0; mt < SD_MT; mt++) {
          sd_mma(o[mt][2 * ep], a[mt], b[0], b[1]);
          sd_mma(o[mt][2 * ep + 1], a[mt], b[2], b[3]);
        }
      }
    }
  }
]], vars))
  end
  add(block(kg.line(), [[
#if SPLIT > 1
  /* combine the cluster's key splits in rank 0: ranks 1.. leave their row
     max, partial sums and accumulators in shared memory (one slot per
     thread and value), rank 0 rescales each to the common max and adds */
  sd_cp_wait_all();
  __syncthreads();                /* every warp done with the K and V tiles */
  {
    float *red = (float *)sd_smem + tid;
    if (kr != 0) {
#pragma unroll
      for (int mt = 0; mt < SD_MT; mt++)
#pragma unroll
        for (int h = 0; h < 2; h++) {
          red[(mt * 2 + h) * SD_THREADS] = mrow[mt][h];
          red[(SD_MT * 2 + mt * 2 + h) * SD_THREADS] = lrow[mt][h];
        }
#pragma unroll
      for (int mt = 0; mt < SD_MT; mt++)
#pragma unroll
        for (int et = 0; et < SD_ET; et++)
#pragma unroll
          for (int e = 0; e < 4; e++)
            red[(SD_MT * 4 + (mt * SD_ET + et) * 4 + e) * SD_THREADS] = o[mt][et][e];
    }
    sd_cluster_sync();
    if (kr == 0) {
#pragma unroll 1
      for (unsigned r = 1; r < SPLIT; r++) {
        const unsigned pr = sd_peer(red, r);
#pragma unroll
        for (int mt = 0; mt < SD_MT; mt++)
#pragma unroll
          for (int h = 0; h < 2; h++) {
            const float mp = sd_ld_peer(pr + (unsigned)((mt * 2 + h) * SD_THREADS * 4));
            const float lp = sd_ld_peer(pr + (unsigned)((SD_MT * 2 + mt * 2 + h) * SD_THREADS * 4));
            const float mx = fmaxf(mrow[mt][h], mp);
            /* both all masked so far: scale by 2^-inf = 0, never NaN */
            const float mu = mx == -KG_INF ? 0.0f : mx;
            const float a0 = sd_exp2(mrow[mt][h] - mu), a1 = sd_exp2(mp - mu);
            mrow[mt][h] = mx;
            lrow[mt][h] = lrow[mt][h] * a0 + lp * a1;
#pragma unroll
            for (int et = 0; et < SD_ET; et++)
#pragma unroll
              for (int c = 0; c < 2; c++) {
                const int e = 2 * h + c;
                o[mt][et][e] = o[mt][et][e] * a0 +
                  sd_ld_peer(pr + (unsigned)((SD_MT * 4 + (mt * SD_ET + et) * 4 + e) * SD_THREADS * 4)) * a1;
              }
          }
      }
    }
    sd_cluster_sync();            /* rank 0 done reading the others */
    if (kr != 0) return;
  }
#endif

  /* out = O / l; l = 0 (every key masked) gives NaN */
#pragma unroll
  for (int mt = 0; mt < SD_MT; mt++)
#pragma unroll
    for (int h = 0; h < 2; h++) {
      float l = lrow[mt][h];
      l += __shfl_xor_sync(0xffffffffu, l, 1);
      l += __shfl_xor_sync(0xffffffffu, l, 2);
      const float inv = l > 0.0f ? 1.0f / l : KG_NAN;
      const int i = m0 + warp * SD_WM + mt * 16 + g + h * 8;
      if (i < @L) {
        const long orow = sd_ob + (long)i * @ORS;
#pragma unroll
        for (int et = 0; et < SD_ET; et++) {
          const int c = et * 8 + t4 * 2;
]], vars))
  add(store)
  add(block(kg.line(), [[
        }
      }
    }
}
]]))
  return table.concat(src)
end

function T.emit(spec, design)
  local I, why = analyse(spec)
  if not I then kg.fail("sdpa: %s", why) end
  operands(I)
  local head = kg.comment(string.format(
    "sdpa %s: L=%d S=%d D=%d E=%d batch=%d scale=%.17g mask=%s causal=%s",
    design.path, I.L, I.S, I.D, I.E, I.nbatch, I.scale, I.mode or "none",
    tostring(I.causal)))
  -- the operands, for anyone (a test harness) reading the generated file
  local roles = {}
  for _, r in ipairs({ "q", "k", "v", "mask", "out" }) do
    local a = I[r]
    if a then
      roles[#roles + 1] = string.format("%s=%s %s [%s] [%s] %d", r, a.cname, a.dtype,
        table.concat(a.shape, ","), table.concat(a.strides, ","), a.offset)
    end
  end
  head = head .. "\n" .. kg.comment("sdpa operands: " .. table.concat(roles, "; ")) ..
    "\n" .. kg.comment(string.format("sdpa fill=%s", I.fill and kg.hex(I.fill) or "none"))
  local body
  if design.path == "mma" then body = emit_mma(spec, I) else body = emit_simt(spec, I) end
  return table.concat({ kg.prelude(spec), head, "\n", body })
end

return T
