-- templates/dwconv_ln.lua -- a depthwise conv1d whose result is normalised
-- over its channels (pattern dwconv_ln, the ConvNeXt block's first half):
--
--   h[b, t, c]   = bias[c] + sum_k w[c, 0, k] * x[b, c, t - pad + k]
--   out[b, t, :] = LayerNorm(h[b, t, :]) * gamma + beta
--
-- with zero padding (x outside [0, T) reads as 0) and stride and dilation 1
-- (the pattern matches no other); t runs over the conv's output length
-- T + 2 pad - KS + 1.  x is any strided view of [B, C, T]; out [B, Tout, C]
-- too.  All arithmetic is f32 and h is never rounded to the storage type
-- (the unfused plan rounds it once when it stores it).
--
-- A block takes BT time steps of one batch entry and every channel:
--   1. it stages the input window of every channel, WIN = BT + KS - 1
--      positions, in shared memory as floats (consecutive threads along
--      the positions of one channel, so the loads run along T);
--   2. thread tid takes channels tid, tid + BLOCK, ...: it reads a
--      channel's window row into registers (lanes on consecutive channels,
--      whose rows lie an odd number of floats apart: no bank conflicts)
--      and its KS weights once, and keeps the channel's BT results in
--      registers (one FMA a tap and result);
--   3. after a barrier the results overwrite the window as BT rows of C;
--   4. BLOCK / BT threads share each row: the row's sum, then its sum of
--      squared deviations from the mean (two passes over shared memory),
--      each combined across the row's threads (xred below); then each
--      thread writes its channels lane, lane + TPR, ... of the row, so
--      consecutive threads store consecutive channels.
-- Design knob path: tile (as above) or direct, the fallback where the
-- buffer does not fit (C * (BT + KS - 1) floats; at KS = 7 on OpenCL's
-- 48 KB, C over about 1700): no buffer, each of the LayerNorm's three
-- passes computes the conv's values again from global memory.
-- Design knob xred: smem (the rows' sums by a tree in shared memory) or
-- shfl (CUDA: warp shuffles, then one step through shared memory where a
-- row spans warps).  Design knob load: scalar (as above) or v16 (CUDA, the
-- tile path, 16-bit x along T and out along C in aligned runs of 8, BT a
-- multiple of 8): step 1 copies the window 16 bytes at a time as it lies
-- in x, from t0 - PADA (the padding rounded up to 8), NCHK chunks a
-- channel, into rows of SH halves (an odd number of 16-byte chunks, so
-- that lanes on consecutive channels read their rows without bank
-- conflicts), and step 2 reads a row 16 bytes at a time; in step 4 each
-- thread takes runs of 8 channels of its row, keeps their values in
-- registers over the three passes (the shared rows are read once) and
-- stores each run with one 16-byte store, gamma and beta read 16 bytes at
-- a time.  load=pipe (CUDA sm_80+, where v16 applies) is v16 in
-- persistent blocks, PB a multiprocessor: a block takes the tiles
-- blockIdx, + gridDim, ..., copies the next tile's window by cp.async
-- (16 bytes, zeros outside [0, T)) into a second buffer while it computes
-- this one, keeps the results' rows apart from both windows, and loads
-- its channels' weights and its runs' gamma and beta once, into
-- registers.  Tuning knobs: BT (time steps a block), BLOCK (threads), PB
-- (pipe's blocks a multiprocessor).
-- (Reading each thread's window rows straight from global memory, without
-- step 1, ran about half as fast on the H200: docs/performance.md
-- attempt 20.)
-- The window and the rows share one buffer: dynamic shared memory on CUDA,
-- a static one of at most 48 KB on OpenCL (at C = 512, BT <= 16 there).

local T = {
  name = "dwconv_ln",
  backends = { "cuda", "opencl" },
  design = { path = { "tile", "direct" }, xred = { "smem", "shfl" }, load = { "scalar", "v16", "pipe" } },
  tuning = {
    BT = { 1, 2, 4, 8, 16, 32 },
    BLOCK = { 64, 128, 256, 512, 1024 },
    PB = { 1, 2 },
  },
}

local offs = kg.offsets

local MAX_STATIC = 48 * 1024     -- OpenCL's buffer is static: at most 48 KB

local np2 = kg.np2

local function geometry(spec)
  local bd, d = spec.bind, spec.dims
  local conv
  for _, n in ipairs(spec.nodes) do if n.op == "conv1d" then conv = n end end
  return {
    x = bd.x, w = bd.w, bc = bd.bc, gamma = bd.gamma, beta = bd.beta, out = bd.out,
    conv = conv, B = d.B, C = d.C, T = d.T, KS = d.KS,
    Tout = bd.out and bd.out.shape[2], pad = spec.params.pad or 0, eps = spec.params.eps or 1e-5,
  }
end

-- load=v16: the window's chunks of 8 a channel (from t0 - PADA, PADA the
-- padding rounded up to 8) and its staged row's stride in halves (an odd
-- number of chunks)
local function v16_pada(g) return (g.pad + 7) // 8 * 8 end

local function v16_rows(g, cfg)
  local pada = v16_pada(g)
  local nchk = kg.cdiv(pada - g.pad + cfg.BT + g.KS - 1, 8)
  return nchk, (nchk | 1) * 8, pada
end

-- floats of the shared buffer: the window (C rows of WS floats, or of SH
-- halves under v16), or the results (BT rows of C), whichever is larger;
-- then BLOCK for the reductions
local function buf_floats(g, cfg)
  local ws = (cfg.BT + g.KS - 1) | 1
  if cfg.path == "direct" then return 0, ws end
  if cfg.load == "v16" then
    local _, sh = v16_rows(g, cfg)
    return math.max(g.C * sh // 2, cfg.BT * g.C), ws
  end
  if cfg.load == "pipe" then
    local _, sh = v16_rows(g, cfg)
    return g.C * sh + cfg.BT * g.C, ws   -- (two windows of halves, then the rows)
  end
  return math.max(g.C * ws, cfg.BT * g.C), ws
end

-- can the window and the output move 16 bytes at a time (load=v16)?  x
-- 16-bit and contiguous along T, out the same along C, gamma and beta
-- contiguous in out's type, every run of 8 aligned
local function v16_ok(g)
  local function al(a, axis)
    if a.dtype ~= "f16" and a.dtype ~= "bf16" then return false end
    if a.strides[axis] ~= 1 or a.offset % 8 ~= 0 then return false end
    for i = 1, a.rank do
      if i ~= axis and a.shape[i] > 1 and a.strides[i] % 8 ~= 0 then return false end
    end
    return a.shape[axis] % 8 == 0
  end
  return al(g.x, 3) and al(g.out, 3) and al(g.gamma, 1) and al(g.beta, 1) and
    g.gamma.dtype == g.out.dtype and g.beta.dtype == g.out.dtype
end

-- load=pipe: a thread's registers, roughly: the weights, gamma and beta
-- held over the tiles, then the larger of the conv's results and window
-- row and the LayerNorm's runs (at C = 512, K = 7 ptxas used 90 to 127
-- where this says 80 to 128).  The kernel's __launch_bounds__(BLOCK, PB)
-- holds ptxas to PB blocks a multiprocessor, spilling what does not fit;
-- the constraint keeps the spill small
local function pipe_regs(g, cfg)
  local nch, ng = kg.cdiv(g.C, cfg.BLOCK), kg.cdiv(g.C // 8, cfg.BLOCK // cfg.BT)
  local nchk = v16_rows(g, cfg)
  return nch * (g.KS + 1) + 8 * ng + math.max(nch * cfg.BT + nchk * 8, 8 * ng) + 8
end

-- the kernel's shared memory in bytes: on CUDA dynamic (the runtime lifts
-- the 48 KB default), on OpenCL static
local function smem_bytes(g, cfg)
  return 4 * (buf_floats(g, cfg) + cfg.BLOCK)
end

function T.supports(spec)
  if spec.pattern ~= "dwconv_ln" then return false, "dwconv_ln takes the dwconv_ln pattern" end
  local g = geometry(spec)
  for _, k in ipairs({ "x", "w", "gamma", "beta", "out" }) do
    if not g[k] then return false, "pattern binding '" .. k .. "' is missing" end
  end
  if not g.conv then return false, "dwconv_ln without its conv1d" end
  return true
end

function T.constraints(spec, cfg)
  local g = geometry(spec)
  local tpr = cfg.BLOCK // cfg.BT
  if cfg.BLOCK < cfg.BT then return false, "fewer threads than time steps" end
  if cfg.BLOCK > spec.limits.threads then return false, "BLOCK over the device's threads" end
  if tpr > np2(g.C) then return false, "more threads a row than channels" end
  if cfg.BT > 1 and cfg.BT > np2(g.Tout) then return false, "BT beyond the output's length" end
  if cfg.path == "tile" then
    if kg.cdiv(g.C, cfg.BLOCK) * cfg.BT > 64 then return false, "more than 64 results a thread" end
    if cfg.BT + g.KS - 1 > 64 then return false, "a window row over 64 registers" end
  end
  if cfg.xred == "shfl" and spec.backend ~= "cuda" then return false, "xred=shfl is CUDA's" end
  if cfg.load == "v16" or cfg.load == "pipe" then
    local d = "load=" .. cfg.load
    if spec.backend ~= "cuda" or cfg.path ~= "tile" then return false, d .. ": CUDA's tile path" end
    if not v16_ok(g) then return false, d .. ": x along T and out along C in aligned runs of 8" end
    if cfg.BT % 8 ~= 0 then return false, d .. ": BT a multiple of 8" end
    if v16_rows(g, cfg) * 8 > 64 then return false, d .. ": a window row over 64 registers" end
    if kg.cdiv(g.C // 8, cfg.BLOCK // cfg.BT) * 8 > 64 then return false, d .. ": over 64 values of a row a thread" end
  end
  if cfg.load == "pipe" then
    if kg.sm(spec) < 80 then return false, "load=pipe: cp.async needs sm_80" end
    if cfg.BLOCK * cfg.PB > 2048 then return false, "load=pipe: PB blocks of BLOCK over an SM's threads" end
    if cfg.PB * cfg.BLOCK * pipe_regs(g, cfg) > 1.25 * 65536 then
      return false, "load=pipe: PB blocks' registers over a multiprocessor's by a quarter"
    end
  elseif cfg.PB ~= 1 then
    return false, "PB is load=pipe's"
  end
  local lim = spec.limits.smem
  if spec.backend ~= "cuda" and lim > MAX_STATIC then lim = MAX_STATIC end
  if smem_bytes(g, cfg) > lim then return false, "the window is over the shared memory" end
  if cfg.PB > 1 and cfg.PB * (smem_bytes(g, cfg) + 1024) > lim + 1024 then
    return false, "load=pipe: PB blocks' buffers over an SM's shared memory"
  end
  return true
end

-- a rough cost, lower first: the halo's re-reads (WIN / BT), the share of
-- the block's threads the rows' reductions leave idle between barriers,
-- and small blocks
function T.rank(spec, cfg)
  local g = geometry(spec)
  local tpr = cfg.BLOCK // cfg.BT
  local steps = math.log(tpr, 2)
  -- (direct: every pass reads each input KS times, lanes along the
  -- channels, a run of one value each: a fallback)
  if cfg.path == "direct" then return 3 * g.KS + steps / 16 + (cfg.BLOCK < 128 and 0.5 or 0) end
  -- (v16: a sixteenth of the loads and stores, the rows read once)
  -- (pipe: the next tile's window lands while this one is computed)
  return (cfg.BT + g.KS - 1) / cfg.BT + steps / 16 + (cfg.BLOCK < 128 and 0.5 or 0) +
    kg.cdiv(g.C, cfg.BLOCK) * cfg.BT / 128 - (cfg.load == "v16" and 0.5 or 0) -
    (cfg.load == "pipe" and 0.75 or 0)
end

function T.launch(spec, cfg)
  local g = geometry(spec)
  local tiles = g.B * kg.cdiv(g.Tout, cfg.BT)
  if cfg.load == "pipe" then tiles = math.min(tiles, (spec.limits.units or 80) * cfg.PB) end
  return { grid = { tiles, 1, 1 }, block = { cfg.BLOCK, 1, 1 },
           smem = spec.backend == "cuda" and smem_bytes(g, cfg) or 0 }
end

function T.emit(spec, design)
  local g = geometry(spec)
  local x, w, bc, gm, bt, o = g.x, g.w, g.bc, g.gamma, g.beta, g.out
  local cuda = spec.backend == "cuda"
  local SQRT = cuda and "sqrtf" or "sqrt"
  local L = {}
  local function add(s) L[#L + 1] = s end
  local C, Tn, To, KS = g.C, g.T, g.Tout, g.KS
  add(string.format("#define WIN (BT + %d)", KS - 1))
  add("#define WS (WIN | 1)")
  add("#define TPR (BLOCK / BT)")
  add(string.format("#define NCH ((%d + BLOCK - 1) / BLOCK)", C))
  local tile = design.path ~= "direct"
  local pipe = design.load == "pipe"
  local v16 = design.load == "v16" or pipe
  local xt = kg.ctype(spec, x.dtype)
  if v16 then
    local pada = v16_pada(g)
    add(string.format("#define PADA %d", pada))
    add(string.format("#define SH0 %d   /* the window's first position in a staged row */", pada - g.pad))
    add("#define NCHK ((SH0 + WIN + 7) / 8)   /* 16-byte chunks of a channel's window */")
    add("#define SH ((NCHK | 1) * 8)   /* a staged row's stride in halves */")
    if pipe then
      add(string.format("#define NWF (%d * SH)   /* the two windows, in floats */", C))
      add(string.format("#define NBUF (NWF + BT * %d)", C))
      add(string.format("#define NTB ((%dL + BT - 1) / BT)   /* tiles a batch entry */", To))
    else
      add(string.format("#define NBUF (%d * SH / 2 > BT * %d ? %d * SH / 2 : BT * %d)", C, C, C, C))
    end
    -- (a row's channel c lies at KG_DL_SW(c): the halves of each run of 8
    -- swapped where bit 5 of c is set, so that the LayerNorm's 16-byte reads
    -- of 8 consecutive runs fall on 32 distinct banks, where they had fallen
    -- two to a bank; a warp's 32 consecutive channels still store to 32)
    add("#define KG_DL_SW(c) ((c) ^ (((c) >> 3) & 4))")
  elseif tile then
    add(string.format("#define NBUF (%d * WS > BT * %d ? %d * WS : BT * %d)", C, C, C, C))
  else
    add("#define NBUF 0")
  end
  if pipe then
    -- (the rows after the two windows)
    add("  extern __shared__ __align__(16) float kg_dl_smem[];")
    add("  float *const buf = kg_dl_smem + NWF, *const red = kg_dl_smem + NBUF;")
    add(string.format("  %s *const win0 = (%s *)kg_dl_smem, *const win1 = win0 + NWF;", xt, xt))
  elseif cuda then
    add("  extern __shared__ __align__(16) float kg_dl_smem[];")
    add(tile and "  float *const buf = kg_dl_smem, *const red = kg_dl_smem + NBUF;" or
      "  float *const red = kg_dl_smem;")
  else
    if tile then add("  KG_SHARED float buf[NBUF];") end
    add("  KG_SHARED float red[BLOCK];")
  end
  add("  const int tid = (int)KG_TID(0);")
  -- pipe: the block's tiles tl = blockIdx, + gridDim, ...; each channel's
  -- weights and each run's gamma and beta are loaded once, into
  -- registers, and each tile's window by cp.async while the tile before
  -- it is computed (wait_group 1 leaves the next one in flight)
  local function pipe_issue(tl, wb)
    add("  {")
    add(string.format("    const long ib = (%s) / NTB, it0 = (%s) %% NTB * BT;", tl, tl))
    add(string.format("    for (int e = tid; e < %d * NCHK; e += BLOCK) {", C))
    add("      const int c = e / NCHK, j = e % NCHK;")
    add("      const long p = it0 - PADA + 8 * j;")
    add(string.format("      const int ok = p >= 0 && p < %dL;", Tn))
    add(string.format("      kg_dl_cp16(%s + c * SH + 8 * j, %s + %s, ok);", wb, x.cname, offs(x, { "ib", "c", "ok ? p : 0" })))
    add("    }")
    add("  }")
  end
  if pipe then
    add(string.format("  const long ntl = %dL * NTB;", g.B))
    add(string.format("  float wk[NCH][%d], bv[NCH];", KS))
    add("  #pragma unroll")
    add("  for (int i = 0; i < NCH; i++) {")
    add("    const int c = tid + i * BLOCK;")
    add("    #pragma unroll")
    add(string.format("    for (int k = 0; k < %d; k++) wk[i][k] = c < %d ? %s : 0.0f;", KS, C,
      kg.load(spec, w.dtype, w.cname, offs(w, { "c", "0", "k" }))))
    add(string.format("    bv[i] = c < %d ? %s : 0.0f;", C, bc and kg.load(spec, bc.dtype, bc.cname, offs(bc, { "c" })) or "0.0f"))
    add("  }")
    add(string.format("#define NG ((%d / 8 + TPR - 1) / TPR)", C))
    add("  uint4 gq[NG], bq[NG];")
    add("  #pragma unroll")
    add("  for (int i = 0; i < NG; i++) {")
    add("    const int gi = tid % TPR + i * TPR;")
    add("    gq[i] = bq[i] = make_uint4(0u, 0u, 0u, 0u);")
    add(string.format("    if (gi < %d) {", C // 8))
    add(string.format("      gq[i] = *(const uint4 *)(%s + %s);", gm.cname, offs(gm, { "gi * 8" })))
    add(string.format("      bq[i] = *(const uint4 *)(%s + %s);", bt.cname, offs(bt, { "gi * 8" })))
    add("    }")
    add("  }")
    add("  if (KG_BID(0) < ntl)")
    pipe_issue("KG_BID(0)", "win0")
    add("  kg_dl_commit();")
    add("  int par = 0;")
    add("  for (long tl = KG_BID(0); tl < ntl; tl += KG_GDIM(0), par ^= 1) {")
    add("  const long b = tl / NTB, t0 = tl % NTB * BT;")
    add("  if (tl + KG_GDIM(0) < ntl)")
    pipe_issue("tl + KG_GDIM(0)", "(par ? win0 : win1)")
    add("  kg_dl_commit();")
    add("  kg_dl_wait1();")
    add("  KG_BARRIER();")
    add(string.format("  const %s *const hb = par ? win1 : win0;", xt))
  else
    add(string.format("  const long tb = KG_BID(0) %% ((%dL + BT - 1) / BT);", To))
    add(string.format("  const long b = KG_BID(0) / ((%dL + BT - 1) / BT);", To))
    add(string.format("  const long t0 = tb * BT, p0 = t0 - %dL;", g.pad))
  end
  if v16 and not pipe then   -- (pipe: the window is in flight or landed)
    -- 1. the window as it lies in x, 16 bytes at a time from t0 - PADA (a
    -- chunk lies wholly inside or outside [0, T): t0, PADA and T are
    -- multiples of 8)
    add(string.format("  %s *const hb = (%s *)buf;", xt, xt))
    add(string.format("  for (int e = tid; e < %d * NCHK; e += BLOCK) {", C))
    add("    const int c = e / NCHK, j = e % NCHK;")
    add("    const long p = t0 - PADA + 8 * j;")
    add("    uint4 v = make_uint4(0u, 0u, 0u, 0u);")
    add(string.format("    if (p >= 0 && p < %dL) v = *(const uint4 *)(%s + %s);", Tn, x.cname, offs(x, { "b", "c", "p" })))
    add("    *(uint4 *)(hb + c * SH + 8 * j) = v;")
    add("  }")
    add("  KG_BARRIER();")
  elseif tile and not v16 then
    -- 1. the window, along T
    add(string.format("  for (int e = tid; e < %d * WIN; e += BLOCK) {", C))
    add("    const int c = e / WIN, wi = e % WIN;")
    add("    const long p = p0 + wi;")
    add(string.format("    buf[c * WS + wi] = p >= 0 && p < %dL ? %s : 0.0f;", Tn,
      kg.load(spec, x.dtype, x.cname, offs(x, { "b", "c", "p" }))))
    add("  }")
    add("  KG_BARRIER();")
  end
  if tile then
    -- thread tid's channels tid, tid + BLOCK, ... (NCH of them): body
    -- emits the statements for channel c, the i-th
    local function channels(body)
      add("  #pragma unroll")
      add("  for (int i = 0; i < NCH; i++) {")
      add("    const int c = tid + i * BLOCK;")
      add(string.format("    if (c < %d) {", C))
      body()
      add("    }")
      add("  }")
    end
    -- 2. the conv: each channel's KS weights and its window row in
    -- registers, and its BT results kept there
    add("  float acc[NCH][BT];")
    channels(function()
      if pipe then
        add("      float xv[NCHK * 8];")
      else
        add(string.format("      float wk[%d], xv[%s];", KS, v16 and "NCHK * 8" or "WIN"))
        add("      #pragma unroll")
        add(string.format("      for (int k = 0; k < %d; k++) wk[k] = %s;", KS,
          kg.load(spec, w.dtype, w.cname, offs(w, { "c", "0", "k" }))))
        add(string.format("      const float bv = %s;", bc and kg.load(spec, bc.dtype, bc.cname, offs(bc, { "c" })) or "0.0f"))
      end
      add("      #pragma unroll")
      if v16 then
        add("      for (int j = 0; j < NCHK; j++) {")
        add("        const uint4 raw = *(const uint4 *)(hb + c * SH + 8 * j);")
        add(string.format("        const %s *h = (const %s *)&raw;", xt, xt))
        add("        #pragma unroll")
        add(string.format("        for (int u = 0; u < 8; u++) xv[8 * j + u] = %s;", kg.load(spec, x.dtype, "h", "u")))
        add("      }")
      else
        add("      for (int j = 0; j < WIN; j++) xv[j] = buf[c * WS + j];")
      end
      add("      #pragma unroll")
      add("      for (int tt = 0; tt < BT; tt++) {")
      add(pipe and "        float s = bv[i];" or "        float s = bv;")
      add("        #pragma unroll")
      add(string.format("        for (int k = 0; k < %d; k++) s += wk%s[k] * xv[%stt + k];", KS, pipe and "[i]" or "",
        v16 and "SH0 + " or ""))
      add("        acc[i][tt] = s;")
      add("      }")
    end)
    add("  KG_BARRIER();")   -- (every window row read; pipe: the last tile's rows too)
    -- 3. the results as BT rows of C
    channels(function()
      add("      #pragma unroll")
      add(string.format("      for (int tt = 0; tt < BT; tt++) buf[tt * %d + %s] = acc[i][tt];", C, v16 and "KG_DL_SW(c)" or "c"))
    end)
    add("  KG_BARRIER();")
  end
  -- v = the sum of v over the TPR threads of the row, in every one of
  -- them: a tree in shared memory (xred=smem), or warp shuffles and, where
  -- a row spans warps, one step through shared memory (shfl)
  local function rowsum(v)
    if design.xred == "shfl" then
      add("  #pragma unroll")
      add(string.format("  for (int o = (TPR < 32 ? TPR : 32) / 2; o > 0; o >>= 1) %s += __shfl_xor_sync(0xffffffffu, %s, o);", v, v))
      add("#if TPR > 32")
      add(string.format("  if (lane %% 32 == 0) red[tid / 32] = %s;", v))
      add("  KG_BARRIER();")
      add(string.format("  %s = 0.0f;", v))
      add("  #pragma unroll")
      add(string.format("  for (int i = 0; i < TPR / 32; i++) %s += red[r * (TPR / 32) + i];", v))
      add("  KG_BARRIER();")
      add("#endif")
    else
      add(string.format("  red[tid] = %s;", v))
      add("  KG_BARRIER();")
      add("  for (int h = TPR / 2; h > 0; h >>= 1) {")
      add("    if (lane < h) red[tid] += red[tid + h];")
      add("    KG_BARRIER();")
      add("  }")
      add(string.format("  %s = red[r * TPR];", v))
      add("  KG_BARRIER();")
    end
  end
  -- 4. LayerNorm of row r by TPR threads: each pass visits the row's
  -- channels lane, lane + TPR, ..., with v the conv's value there (tile:
  -- from the rows in shared memory; direct: computed again from global
  -- memory, 0 past the output's end)
  add("  const int r = tid / TPR, lane = tid % TPR;")
  add(string.format("  const int rb = r * %d;", C))
  add("  const long t = t0 + r;")
  local function each(body)
    add(string.format("  for (int c = lane; c < %d; c += TPR) {", C))
    if tile then
      add("    const float v = buf[rb + c];")
    else
      add(string.format("    float v = %s;", bc and kg.load(spec, bc.dtype, bc.cname, offs(bc, { "c" })) or "0.0f"))
      add(string.format("    if (t < %dL)", To))
      add(string.format("      for (int k = 0; k < %d; k++) {", KS))
      add(string.format("        const long p = t - %dL + k;", g.pad))
      add(string.format("        if (p >= 0 && p < %dL) v += %s * %s;", Tn,
        kg.load(spec, w.dtype, w.cname, offs(w, { "c", "0", "k" })),
        kg.load(spec, x.dtype, x.cname, offs(x, { "b", "c", "p" }))))
      add("      }")
    end
    add("    " .. body)
    add("  }")
  end
  -- the passes: the row's sum (v16: with its values read into registers),
  -- the squared deviations, the stores
  local sum_pass, dev_pass, store_pass
  if v16 then
    -- (v16: runs of 8 channels gi * 8 .. gi * 8 + 7 for gi = lane, lane +
    -- TPR, ...: the row read once, its values kept in registers, gamma,
    -- beta and the output 16 bytes at a time)
    local ot = kg.ctype(spec, o.dtype)
    local function groups(body)
      add("  #pragma unroll")
      add("  for (int i = 0; i < NG; i++) {")
      add("    const int gi = lane + i * TPR;")
      body()
      add("  }")
    end
    if not pipe then add(string.format("#define NG ((%d / 8 + TPR - 1) / TPR)", C)) end
    add("  float vv[NG][8];")
    -- (the sums in 8 partials, one a run's place, combined by a tree: one
    -- chain of NG * 8 dependent adds a thread had left its warp waiting on
    -- each, docs/performance.md attempt 27)
    local function tree(v)
      add(string.format("  %s += ((%su[0] + %su[1]) + (%su[2] + %su[3])) + ((%su[4] + %su[5]) + (%su[6] + %su[7]));",
        v, v, v, v, v, v, v, v, v))
    end
    sum_pass = function()
      add("  float su[8] = { 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f };")
      groups(function()
        add("    #pragma unroll")
        add("    for (int u = 0; u < 8; u++) vv[i][u] = 0.0f;")
        add(string.format("    if (gi < %d) {", C // 8))
        add("      const float4 a0 = *(const float4 *)&buf[rb + KG_DL_SW(gi * 8)], a1 = *(const float4 *)&buf[rb + KG_DL_SW(gi * 8 + 4)];")
        add("      vv[i][0] = a0.x; vv[i][1] = a0.y; vv[i][2] = a0.z; vv[i][3] = a0.w;")
        add("      vv[i][4] = a1.x; vv[i][5] = a1.y; vv[i][6] = a1.z; vv[i][7] = a1.w;")
        add("    }")
        add("    #pragma unroll")
        add("    for (int u = 0; u < 8; u++) su[u] += vv[i][u];")
      end)
      tree("s")
    end
    dev_pass = function()
      add("  float qu[8] = { 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f };")
      groups(function()
        add(string.format("    if (gi < %d) {", C // 8))
        add("      #pragma unroll")
        add("      for (int u = 0; u < 8; u++) { const float d = vv[i][u] - mean; qu[u] += d * d; }")
        add("    }")
      end)
      tree("q")
    end
    store_pass = function()
      groups(function()
        add(string.format("    if (gi < %d) {", C // 8))
        if pipe then
          add("      const uint4 gr = gq[i], br = bq[i];")
        else
          add(string.format("      const uint4 gr = *(const uint4 *)(%s + %s), br = *(const uint4 *)(%s + %s);",
            gm.cname, offs(gm, { "gi * 8" }), bt.cname, offs(bt, { "gi * 8" })))
        end
        add(string.format("      const %s *gh = (const %s *)&gr, *bh = (const %s *)&br;", ot, ot, ot))
        add("      " .. kg.st16(spec, string.format("%s + %s", o.cname, offs(o, { "b", "t", "gi * 8" })),
          kg.pack16(spec, o.dtype, function(u)
            return string.format("(vv[i][%d] - mean) * rstd * %s + %s", u, kg.load(spec, o.dtype, "gh", u),
              kg.load(spec, o.dtype, "bh", u))
          end)))
        add("    }")
      end)
    end
  else
    sum_pass = function() each("s += v;") end
    dev_pass = function() each("const float d = v - mean; q += d * d;") end
    store_pass = function()
      each(kg.store(spec, o.dtype, o.cname, offs(o, { "b", "t", "c" }),
        string.format("(v - mean) * rstd * %s + %s",
          kg.load(spec, gm.dtype, gm.cname, offs(gm, { "c" })),
          kg.load(spec, bt.dtype, bt.cname, offs(bt, { "c" })))))
    end
  end
  add("  float s = 0.0f;")
  sum_pass()
  rowsum("s")
  add(string.format("  const float mean = s / %s;", kg.float(C)))
  add("  float q = 0.0f;")
  dev_pass()
  rowsum("q")
  add(string.format("  const float rstd = 1.0f / %s(q / %s + %s);", SQRT, kg.float(C), kg.float(g.eps)))
  if pipe then
    -- (no return: every thread meets the next tile's barriers)
    add(string.format("  if (t < %dL) {", To))
    store_pass()
    add("  }")
    add("  }")   -- (the tile loop)
  else
    add(string.format("  if (t >= %dL) return;", To))
    store_pass()
  end
  local out = { kg.prelude(spec) }
  out[#out + 1] = kg.comment(string.format(
    "depthwise conv1d then LayerNorm over the channels: B %d, C %d, T %d -> %d, K %d, padding %d, eps %s",
    g.B, C, Tn, To, KS, g.pad, tostring(g.eps)))
  out[#out + 1] = kg.line()
  if pipe then
    out[#out + 1] = [[
/* 16 bytes global -> shared by cp.async, zeros unless ok */
static __device__ __forceinline__ void kg_dl_cp16(void *s, const void *g, int ok)
{
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n"
               :: "r"((unsigned)__cvta_generic_to_shared(s)), "l"(g), "r"(ok ? 16 : 0) : "memory");
}
static __device__ __forceinline__ void kg_dl_commit(void) { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
/* every group but the newest landed */
static __device__ __forceinline__ void kg_dl_wait1(void) { asm volatile("cp.async.wait_group 1;\n" ::: "memory"); }
]]
  end
  -- (pipe: PB blocks a multiprocessor bound the registers, so that they fit)
  out[#out + 1] = string.format([[
KG_KERNEL void %s%s(
    %s)
{
  KG_GRID_DEP();
%s
}
]], pipe and "__launch_bounds__(BLOCK, PB) " or "", spec.kernel, kg.params(spec), table.concat(L, "\n"))
  return table.concat(out, "\n")
end

return T
