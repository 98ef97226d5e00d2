-- templates/dwconv.lua -- depthwise conv1d (groups == Cin == Cout).
--
--   y[b, c, t] = bias[c] + sum_k w[c, 0, k] * x[b, c, t * stride - padding + k * dilation]
--
-- with zero padding: x positions outside [0, T) read as 0.  x [B, C, T] may
-- be any strided view (a transposed [B, T, C] tensor: channels-last); y
-- [B, C, Tout] is contiguous, or channels-last where the kernel ends in a
-- transpose of it (the planner gives a conv whose input is channels-last
-- the transpose back, so that its reader gets [B, Tout, C] contiguous).
-- All arithmetic is f32.
--
-- Design knobs:
--   path = tile    a block computes a BC x BT tile of (channel, output time)
--                  of one batch: the input window of the tile -- BC channels
--                  of WIN = (BT - 1) * stride + (K - 1) * dilation + 1
--                  positions -- is staged in shared memory first (zero
--                  padded), read in the input's memory order (along time,
--                  or along channels for a channels-last view) so the loads
--                  coalesce; then each of the BC * BT / ITEMS threads
--                  computes ITEMS outputs of one channel, BT / ITEMS apart,
--                  with the channel's K weights in registers (K <= 32).
--          direct  one output per thread, BLOCK threads, time fastest; the
--                  K inputs are read straight from global memory.
--   items = apart  (tile) a thread's ITEMS outputs lie BT / ITEMS apart and
--                  each reads its K inputs from shared memory: two
--                  instructions a tap and output.
--           run    (tile) a thread's ITEMS outputs are consecutive: it reads
--                  the (ITEMS - 1) * stride + (K - 1) * dilation + 1 inputs
--                  they share into registers once, then one FMA a tap and
--                  output; consecutive threads take consecutive channels,
--                  whose window rows lie an odd number of floats apart (no
--                  bank conflicts); 16-bit results of a run of 8 go out in
--                  one 16-byte store where aligned.  At most 64 inputs.
--          mma     (CUDA sm_80+, x and w both f16 or both bf16, stride 1) the
--                  tensor cores: for one channel, 128 consecutive outputs
--                  t = 8m + n (m < 16, n < 8) are the m16n8 product of a
--                  Hankel matrix of the input, A[m, kk] = x[8m + kk], with
--                  the Toeplitz matrix of its taps, W[kk, n] = w[(kk - n) /
--                  dilation] where that is a tap, else 0, over kk < 16 * KS,
--                  KS = ceil(((K - 1) * dilation + 8) / 16) (3 at K = 31): KS
--                  mma.sync m16n8k16 a 128 outputs, f32 sums.  A block
--                  stages the BC x (BT + halo) window of one batch entry in
--                  shared memory, one row of 16-bit values a channel (16
--                  bytes a load where channels-last and aligned), zero
--                  outside x and past the halo; A's fragments are 32-bit
--                  loads of that row (a warp's 32 lanes read 128 contiguous
--                  bytes), W's are built once a channel from the block's
--                  BC x K taps, staged in shared memory beside the window
--                  (from global memory they were 12 dependent two-byte
--                  loads a lane and channel at K = 31), and each
--                  lane's results are output pairs t, t + 1 (and t + 64, t +
--                  65), stored 4 or 8 bytes at a time.  A channels-last y
--                  is staged in the window's own rows (a row tile's results
--                  over inputs no later tile reads) and leaves 8 channels
--                  of one step a 16-byte store where aligned.  Each of the BLOCK /
--                  32 warps takes channels warp, warp + BLOCK / 32, ...  The
--                  products with a zero tap are real products: an infinite
--                  or NaN input within 8 * KS steps of a window reaches the
--                  outputs beside its own (finite inputs give the same sums
--                  as the other paths, up to f32 rounding order).
-- Under pattern ln_dwconv (patterns/ln_dwconv.pat) the conv's input is a
-- LayerNorm over the channels of x [B, T, C], read through the transpose:
--   tile   each window row's mean and rstd over all C channels from global
--          memory (two passes; every channel tile reads them again), then
--          the window staged normalised (f32, never rounded)
--   mma    (CUDA sm_90) the C / BC blocks of a row tile are a cluster
--          (LN_CLUSTER below); the staging's rounds also reduce each lane's
--          8 channels of its two steps to a mean and M2, the BC / 8 lanes
--          holding a step's channels join theirs by xor shuffles, the
--          cluster's blocks join theirs through distributed shared memory
--          (Chan et al.: exact, no cancelling sum of squares), and the
--          window is normalised in place, rounded to x's type as the
--          unfused LayerNorm stores it (emit_mma_ln below)
-- direct and lanes do not take it.
-- Tuning knobs: BT, BC, ITEMS (tile); BLOCK (direct); BT (128, 256, 384 or
-- 512; 384 for mma alone), BC and BLOCK (mma; BC 64 and 128 only for
-- ln_dwconv's clusters).  A design ignores the other's knobs, which the
-- constraints pin to their first value.
-- On CUDA a channels-last window whose channels are contiguous and whose
-- rows are 16-byte aligned is staged 16 bytes (8 halves or 4 floats) at a
-- time where BC is a multiple of that.  rank() orders the configs by the
-- halo's re-reads and the loads' and stores' use of each 32-byte sector.

local T = {
  name = "dwconv",
  backends = { "cuda", "opencl" },
  design = { path = { "tile", "direct", "lanes", "mma" }, items = { "apart", "run" } },
  tuning = {
    BT = { 32, 64, 128, 256, 384, 512 },
    BC = { 1, 2, 4, 8, 16, 32, 64, 128 },
    ITEMS = { 1, 2, 4, 8, 16, 32 },
    BLOCK = { 64, 128, 256, 512 },
  },
}

-- local helpers -------------------------------------------------------------

local np2, argof, offs = kg.np2, kg.argof, kg.offsets

-- the kernel's conv as a plain one: x [B, C, T] and y [B, C, Tout] as
-- views; under pattern ln_dwconv x is the LayerNorm's input seen through
-- the transpose the conv reads it by, y the pattern's output seen back
-- through its transpose, and ln holds the LayerNorm's own operands (lx:
-- x as [B, T, C])
local function geometry(spec)
  local n
  for _, m in ipairs(spec.nodes) do if m.op == "conv1d" then n = m; break end end
  local x, w, bias, y, ln
  if spec.pattern == "ln_dwconv" then
    local bd = spec.bind
    x = bd.x and kg.swap_axes(bd.x, 2, 3)
    y = bd.out and kg.swap_axes(bd.out, 2, 3)
    w, bias = bd.w, bd.bc
    ln = { lx = bd.x, gamma = bd.gamma, beta = bd.beta, eps = spec.params.eps or 1e-5 }
  else
    x, w = argof(spec, n.args[1]), argof(spec, n.args[2])
    bias = n.args[3] and argof(spec, n.args[3]) or nil
    y = kg.result_arg(spec, n)
  end
  if not (n and x and w and y) then return { node = n, x = x, w = w, y = y } end
  local a = n.attrs
  return {
    node = n, x = x, w = w, bias = bias, y = y, ln = ln,
    B = x.shape[1], C = x.shape[2], T = x.shape[3], K = w.shape[3],
    Tout = y.shape[3], S = a.stride or 1, P = a.padding or 0, D = a.dilation or 1,
    groups = a.groups or 1,
  }
end

-- the inputs a run of ITEMS consecutive outputs reads (items = run)
local function run_len(g, cfg)
  return (cfg.ITEMS - 1) * g.S + (g.K - 1) * g.D + 1
end

-- path = mma: the k steps of 16 over the window positions one row of 8
-- outputs reads, and the window row's length in halves (BT + 16 KS - 6:
-- every fragment load of the last 128 outputs lies within it, and a row
-- is 2 mod 8 halves long, so that 4 channels staged side by side land in
-- distinct banks)
local function mma_ks(g)
  return kg.cdiv((g.K - 1) * g.D + 8, 16)
end

local function mma_ws(g, cfg)
  return cfg.BT + 16 * mma_ks(g) - 6
end

-- y as the contiguous [B, C, Tout] a plain conv writes (else the kernel
-- ends in a transpose: channels-last)
local function y_contig(g)
  local y = g.y
  return y.offset == 0 and y.strides[3] == 1 and y.strides[2] == g.Tout and
    y.strides[1] == g.C * g.Tout
end

-- the input is channels-last when its channel stride is the smaller
local function channels_last(g)
  local sc = g.C == 1 and math.huge or math.abs(g.x.strides[2])
  local st = g.T == 1 and math.huge or math.abs(g.x.strides[3])
  return sc < st
end

local MAX_STATIC = 48 * 1024     -- CUDA's static shared memory per block

-- path = mma under ln_dwconv: the blocks of a cluster (LN_CLUSTER, 16: past
-- the portable 8, which the runtime allows each kernel on sm_90) take the C / BC channel tiles of one row tile, and the
-- kernel's dynamic shared memory holds the window and the taps (as
-- mma's static arrays), then per window row two floats of this block's
-- partial statistics and two of the whole row's, then gamma and beta of
-- the block's channels
local LN_CLUSTER = 16

local function ln_mma_smem(g, cfg, ws)
  local taps = (cfg.BC * (ws + g.K) * 2 + 15) // 16 * 16
  return taps + 4 * (4 * ws + 2 * cfg.BC)
end

-- __byte_perm selectors over two 32-bit words a, b of 16-bit pairs: the
-- low halves (a's, b's) as one word, and the high halves (mma's two-step
-- staging and gather part each channel's pair of steps with them)
local PERM_LO, PERM_HI = "0x5410", "0x7632"

-- channels per 16-byte access of tensor a (x, or y of length len along
-- time) along its channels (CUDA; channels contiguous, every row start
-- 16-byte aligned, C whole vectors; BC must be too, which the source
-- checks with #if), else nil; vec_width: that of a channels-last x
local function chan_vec(spec, g, a, len)
  if spec.backend ~= "cuda" or a.strides[2] ~= 1 then return nil end
  local V = a.dtype == "f32" and 4 or 8
  if g.C % V ~= 0 or a.offset % V ~= 0 then return nil end
  if g.B > 1 and a.strides[1] % V ~= 0 then return nil end
  if len > 1 and a.strides[3] % V ~= 0 then return nil end
  return V
end

local function vec_width(spec, g)
  return channels_last(g) and chan_vec(spec, g, g.x, g.T) or nil
end

function T.supports(spec)
  if spec.pattern == "ln_dwconv" then
    for _, k in ipairs({ "x", "gamma", "beta", "w", "out" }) do
      if not spec.bind[k] then return false, "ln_dwconv: pattern binding '" .. k .. "' is missing" end
    end
    if not geometry(spec).node then return false, "ln_dwconv without its conv1d" end
  elseif not kg.one_op(spec) or spec.nodes[1].op ~= "conv1d" then
    return false, "dwconv takes a kernel of one conv1d (and a transpose of its result)"
  end
  local g = geometry(spec)
  if not (g.x and g.w and g.y) then return false, "x, w and the result must be arguments" end
  if g.groups ~= g.C or g.y.shape[2] ~= g.C or g.w.shape[1] ~= g.C or g.w.shape[2] ~= 1 then
    return false, "not depthwise (groups == Cin == Cout, w [C, 1, K])"
  end
  local ops = { g.x, g.w, g.y, g.bias or g.x, g.ln and g.ln.gamma or g.x, g.ln and g.ln.beta or g.x }
  for _, a in ipairs(ops) do
    if a.dtype ~= "f32" and a.dtype ~= "f16" and a.dtype ~= "bf16" then
      return false, "dtype " .. a.dtype .. " is not a float type"
    end
  end
  return true
end

function T.constraints(spec, cfg)
  local g = geometry(spec)
  local first = T.tuning
  if cfg.BC > 32 and not (g.ln and cfg.path == "mma") then
    return false, "BC over 32 is for ln_dwconv's clusters (path=mma)"
  end
  if g.ln and (cfg.path == "direct" or cfg.path == "lanes") then
    return false, "ln_dwconv: the LayerNorm by path tile or mma"
  end
  if cfg.path == "direct" then
    if cfg.items ~= "apart" then return false, "items is tile's knob" end
    if cfg.BT ~= first.BT[1] or cfg.BC ~= first.BC[1] or cfg.ITEMS ~= first.ITEMS[1] then
      return false, "BT, BC and ITEMS are tile's knobs"
    end
    if cfg.BLOCK > spec.limits.threads then return false, "BLOCK over the device's threads" end
    if cfg.BLOCK > 64 and cfg.BLOCK > np2(g.B * g.C * g.Tout) then
      return false, "BLOCK beyond the outputs"
    end
    return true
  end
  if cfg.path == "mma" then
    if spec.backend ~= "cuda" or kg.sm(spec) < 80 then return false, "mma needs CUDA sm_80 or later" end
    if cfg.items ~= "apart" or cfg.ITEMS ~= first.ITEMS[1] then return false, "items and ITEMS are tile's knobs" end
    if g.x.dtype ~= g.w.dtype or (g.x.dtype ~= "f16" and g.x.dtype ~= "bf16") then
      return false, "mma takes x and w both f16 or both bf16"
    end
    if g.S ~= 1 then return false, "mma takes stride 1" end
    if mma_ks(g) > 4 then return false, "a window over 64 steps a row of 8 outputs" end
    if cfg.BT % 128 ~= 0 then return false, "BT is whole mma row tiles of 128 outputs" end
    if cfg.BT > 128 and cfg.BT > np2(g.Tout) then return false, "BT beyond Tout" end
    if cfg.BLOCK // 32 > cfg.BC then return false, "more warps than channels" end
    if cfg.BC > 8 and cfg.BC > np2(g.C) then return false, "BC beyond C" end
    if cfg.BLOCK > spec.limits.threads then return false, "BLOCK over the device's threads" end
    if g.ln then
      if kg.sm(spec) < 90 then return false, "ln_dwconv's mma needs sm_90's clusters" end
      if g.C % cfg.BC ~= 0 then return false, "ln_dwconv's mma: BC divides C" end
      if g.C // cfg.BC > LN_CLUSTER then return false, "ln_dwconv's mma: more than 16 blocks a row tile" end
      if ln_mma_smem(g, cfg, mma_ws(g, cfg)) > spec.limits.smem then
        return false, "the window, the taps and the statistics are over the shared memory"
      end
      return true
    end
    if cfg.BC * (mma_ws(g, cfg) + g.K) * 2 > math.min(spec.limits.smem, MAX_STATIC) then
      return false, "the window and the taps are over the shared memory"
    end
    return true
  end
  if cfg.BT & (cfg.BT - 1) ~= 0 then return false, "BT a power of two off the mma path" end
  if cfg.BLOCK ~= first.BLOCK[1] then return false, "BLOCK is direct's knob" end
  if g.K > 32 then return false, "more than 32 taps for registers" end
  if cfg.path == "lanes" then
    if cfg.items ~= "apart" then return false, "items is tile's knob" end
    if not channels_last(g) or g.x.strides[2] ~= 1 then
      return false, "lanes reads contiguous channels: a channels-last input"
    end
    if cfg.BC < 16 then return false, "fewer than 16 channels a row: loads under 32 bytes" end
    if cfg.ITEMS < 8 then return false, "a run under 8 outputs re-reads its halo" end
    if cfg.ITEMS + g.K > 64 then return false, "a run's sums and taps over 64 registers" end
    local nl = cfg.BC * cfg.BT // cfg.ITEMS
    if cfg.ITEMS > cfg.BT then return false, "ITEMS over BT" end
    if nl > spec.limits.threads then return false, "BC * BT / ITEMS over the device's threads" end
    if nl < 64 then return false, "fewer than 64 threads" end
    if cfg.BT > 32 and cfg.BT > np2(g.Tout) then return false, "BT beyond Tout" end
    if cfg.BC > np2(g.C) then return false, "BC beyond C" end
    return true
  end
  if cfg.ITEMS > 8 then return false, "the tile takes ITEMS up to 8" end
  local nt = cfg.BC * cfg.BT // cfg.ITEMS
  if cfg.ITEMS > cfg.BT then return false, "ITEMS over BT" end
  if nt > spec.limits.threads then return false, "BC * BT / ITEMS over the device's threads" end
  if nt < 32 then return false, "fewer than 32 threads" end
  if cfg.BT > 32 and cfg.BT > np2(g.Tout) then return false, "BT beyond Tout" end
  if cfg.BC > 1 and cfg.BC > np2(g.C) then return false, "BC beyond C" end
  local win = (cfg.BT - 1) * g.S + (g.K - 1) * g.D + 1
  if cfg.items == "run" then
    if run_len(g, cfg) > 64 then return false, "a run's inputs over 64 registers" end
    win = win | 1
  end
  local bytes = cfg.BC * (win + (channels_last(g) and (g.K | 1) or 0)) * 4 + (g.ln and 8 * win or 0)
  local lim = spec.limits.smem
  if spec.backend == "cuda" and lim > MAX_STATIC then lim = MAX_STATIC end
  if bytes > lim then return false, "the window is over the shared memory" end
  return true
end

-- a rough cost, lower first (the tuner's first samples): the window's
-- re-read halo, how much of each 32-byte sector the staging loads and the
-- stores use, small blocks, and the instructions a tap costs (two from
-- shared memory, one from a run's registers)
function T.rank(spec, cfg)
  local g = geometry(spec)
  local esz = g.x.dtype == "f32" and 4 or 2
  local store = 32 / math.min(32, (cfg.path == "tile" and cfg.BT or cfg.BLOCK) * esz)
  if cfg.path == "direct" then
    -- every tap from global memory: K loads per output, partly cached
    return 2 + g.K / 8 + store + (channels_last(g) and 8 or 0)
  end
  if cfg.path == "mma" then
    -- the window staged once (16-byte loads where channels-last and
    -- aligned), a few instructions a 128 outputs, pairs stored by whole
    -- sectors; small blocks and few channels a warp cost latency.
    -- Measured at LYNXNet2's conv (docs/performance.md, attempt 36): 4
    -- channels a warp ran 5 to 15% faster than 2 or 8 in either layout,
    -- and a channels-last y's rows of 32 bytes (BC = 16) 3 to 4% slower
    -- than rows of 64
    -- amp: the window positions staged an output, the last row tile's
    -- tail included (blocks past Tout's end do less: at Tout = 768, BT =
    -- 256 ran 11% faster than 512, attempt 38)
    local nb = kg.cdiv(g.Tout, cfg.BT)
    local amp = nb * (cfg.BT + (g.K - 1) * g.D) / g.Tout
    local load = 1
    if channels_last(g) then
      load = 32 / math.min(32, cfg.BC * esz)
      if vec_width(spec, g) and cfg.BC % 8 == 0 then load = load * 0.5 end
    end
    local nw = cfg.BLOCK // 32
    local cpw = math.abs(math.log(cfg.BC / nw, 2) - 2)   -- (BC >= nw: constraints)
    local yrow = (not y_contig(g) and cfg.BC * esz < 64) and 0.05 or 0
    -- (ln_dwconv: clusters of 16 blocks, BC = 64 at C = 1024, ran 10 to
    -- 20% slower than clusters of 8, and a block of over half a
    -- multiprocessor's shared memory, one a multiprocessor, 40% slower
    -- than two (BT = 512 against 256 at BC = 128), attempt 39)
    local cl = g.ln and g.C // cfg.BC > 8 and 0.1 or 0
    if g.ln and 2 * (ln_mma_smem(g, cfg, mma_ws(g, cfg)) + 1024) > spec.limits.smem then cl = cl + 0.25 end
    return amp * load + 1 + (cfg.BLOCK < 128 and 0.25 or 0) + (cfg.BC // nw > 8 and 0.25 or 0) + 0.05 * cpw +
      yrow + mma_ks(g) / 16 + cl
  end
  if cfg.path == "lanes" then
    -- each row read once from memory (the halo's re-reads hit the cache),
    -- run_len / ITEMS loads and K FMAs an output, ITEMS results a store
    local load = 32 / math.min(32, cfg.BC * esz)
    store = 32 / math.min(32, cfg.ITEMS * esz)
    local nt = cfg.BC * cfg.BT // cfg.ITEMS
    return load + store + (nt < 128 and 0.5 or 0) + (g.K + 2 * run_len(g, cfg) / cfg.ITEMS) / 16
  end
  local win = (cfg.BT - 1) * g.S + (g.K - 1) * g.D + 1
  local amp = win / (cfg.BT * g.S)
  local load = 1
  if channels_last(g) then
    local run = cfg.BC * esz
    load = 32 / math.min(32, run)
    if vec_width(spec, g) and cfg.BC % (16 // esz) == 0 then load = load * 0.5 end
  end
  local nt = cfg.BC * cfg.BT // cfg.ITEMS
  local taps = 2 * g.K
  if cfg.items == "run" then
    -- a warp's lanes span 32 / BC runs ITEMS * stride floats apart: fewer
    -- than 32 channels share banks
    local lanes = math.max(1, 32 // cfg.BC)
    local cf = math.max(1, lanes / math.max(1, 32 // (cfg.ITEMS * g.S)))
    taps = g.K + cf * run_len(g, cfg) / cfg.ITEMS
    store = 32 / math.min(32, cfg.ITEMS * esz)
  end
  -- (ln_dwconv: every channel tile reads its window rows' C channels
  -- twice for their statistics)
  local stats = g.ln and g.C / (8 * cfg.BC) or 0
  return amp * load + store + (nt < 128 and 0.5 or 0) + (nt > 512 and 0.25 or 0) + taps / 16 + stats
end

function T.launch(spec, cfg)
  local g = geometry(spec)
  if cfg.path == "direct" then
    return { grid = { math.max(1, kg.cdiv(g.B * g.C * g.Tout, cfg.BLOCK)), 1, 1 },
             block = { cfg.BLOCK, 1, 1 }, smem = 0 }
  end
  if cfg.path == "mma" then
    return { grid = { g.B * kg.cdiv(g.C, cfg.BC) * kg.cdiv(g.Tout, cfg.BT), 1, 1 },
             block = { cfg.BLOCK, 1, 1 }, smem = g.ln and ln_mma_smem(g, cfg, mma_ws(g, cfg)) or 0 }
  end
  local blocks = g.B * kg.cdiv(g.C, cfg.BC) * kg.cdiv(g.Tout, cfg.BT)
  return { grid = { blocks, 1, 1 }, block = { cfg.BC * cfg.BT // cfg.ITEMS, 1, 1 }, smem = 0 }
end

local function emit_direct(spec, g)
  local x, w, y, bias = g.x, g.w, g.y, g.bias
  local L = {}
  local function add(s) L[#L + 1] = s end
  add("  const long i = KG_BID(0) * BLOCK + KG_TID(0);")
  add(string.format("  if (i >= %dL) return;", g.B * g.C * g.Tout))
  add(string.format("  const long t = i %% %dL;", g.Tout))
  add(string.format("  const long c = (i / %dL) %% %dL;", g.Tout, g.C))
  add(string.format("  const long b = i / %dL;", g.Tout * g.C))
  add(string.format("  float acc = %s;", bias and kg.load(spec, bias.dtype, bias.cname, offs(bias, { "c" })) or "0.0f"))
  add(string.format("  const long p0 = t * %dL - %dL;", g.S, g.P))
  add(string.format("  for (int k = 0; k < %d; k++) {", g.K))
  add(string.format("    long p = p0 + (long)k * %dL;", g.D))
  add(string.format("    if (p >= 0 && p < %dL) acc += %s * %s;", g.T,
    kg.load(spec, w.dtype, w.cname, offs(w, { "c", "0", "k" })),
    kg.load(spec, x.dtype, x.cname, offs(x, { "b", "c", "p" }))))
  add("  }")
  add("  " .. kg.store(spec, y.dtype, y.cname, y_contig(g) and "i" or offs(y, { "b", "c", "t" }), "acc"))
  return table.concat(L, "\n")
end

-- the block's coordinates: time tile tb, channel tile cb, batch b
local function block_coords(g, add)
  add("  const int tid = (int)KG_TID(0);")
  add("  long bid = KG_BID(0);")
  add(string.format("  const long tb = bid %% ((%dL + BT - 1) / BT); bid /= (%dL + BT - 1) / BT;", g.Tout, g.Tout))
  add(string.format("  const long cb = bid %% ((%dL + BC - 1) / BC);", g.C))
  add(string.format("  const long b = bid / ((%dL + BC - 1) / BC);", g.C))
end

-- channel c's K weights into wk[] (wload: tap k's value) and its bias bv
local function taps(spec, g, add, wload)
  local bias = g.bias
  add(string.format("  float wk[%d];", g.K))
  add("  #pragma unroll")
  add(string.format("  for (int k = 0; k < %d; k++) wk[k] = %s;", g.K, wload))
  add(string.format("  const float bv = %s;", bias and kg.load(spec, bias.dtype, bias.cname, offs(bias, { "c" })) or "0.0f"))
end

-- the ITEMS consecutive results acc[] of channel c from output tr on: on
-- CUDA, 16-bit results leave 8 at a time in 16-byte stores where Tout is a
-- multiple of 8 (a run starts at a multiple of ITEMS)
local function run_store(spec, g, add)
  local y = g.y
  local yo = string.format("(b * %dL + c) * %dL + tr", g.C, g.Tout)
  local scalar = {
    "  #pragma unroll",
    "  for (int it = 0; it < ITEMS; it++)",
    string.format("    if (tr + it < %dL) %s", g.Tout, kg.store(spec, y.dtype, y.cname,
      y_contig(g) and yo .. " + it" or offs(y, { "b", "c", "tr + it" }), "acc[it]")),
  }
  if spec.backend == "cuda" and y.dtype ~= "f32" and g.Tout % 8 == 0 and y_contig(g) then
    -- 8 results, 16 bytes a store (the run starts at a multiple of 8)
    add(string.format([[
#if ITEMS %% 8 == 0
  #pragma unroll
  for (int i8 = 0; i8 < ITEMS; i8 += 8)
    if (tr + i8 + 8 <= %dL)
      %s
#else]], g.Tout, kg.st16(spec, string.format("%s + (%s + i8)", y.cname, yo),
      kg.pack16(spec, y.dtype, function(u) return string.format("acc[i8 + %d]", u) end))))
    for _, l in ipairs(scalar) do add(l) end
    add("#endif")
  else
    for _, l in ipairs(scalar) do add(l) end
  end
end

-- items = run: thread tid computes outputs t0 + ti * ITEMS + it of channel
-- c0 + ci (ci = tid % BC), from RUN inputs of its window row in registers
local function emit_run(spec, g, add, wload)
  local R = string.format("((ITEMS - 1) * %d + %d)", g.S, (g.K - 1) * g.D + 1)
  add("  const int ci = tid % BC, ti = tid / BC;")
  add("  const long c = c0 + ci;")
  add(string.format("  if (c >= %dL) return;", g.C))
  taps(spec, g, add, wload)
  add(string.format("  float xv[%s];", R))
  add("  #pragma unroll")
  add(string.format("  for (int j = 0; j < %s; j++) xv[j] = win[ci * WS + ti * ITEMS * %d + j];", R, g.S))
  add("  float acc[ITEMS];")
  add("  #pragma unroll")
  add("  for (int it = 0; it < ITEMS; it++) {")
  add("    acc[it] = bv;")
  add("    #pragma unroll")
  add(string.format("    for (int k = 0; k < %d; k++) acc[it] += wk[k] * xv[it * %d + k * %d];", g.K, g.S, g.D))
  add("  }")
  add("  const long tr = t0 + ti * ITEMS;")
  run_store(spec, g, add)
end

local function emit_tile(spec, g, design)
  local x, w, y = g.x, g.w, g.y
  local run = design.items == "run"
  local L = {}
  local function add(s) L[#L + 1] = s end
  add(string.format("#define WIN ((BT - 1) * %d + %d)", g.S, (g.K - 1) * g.D + 1))
  -- (run: an odd row stride, so that lanes on consecutive channels read
  -- distinct banks)
  add(run and "#define WS (WIN | 1)" or "#define WS WIN")
  add("#define NT (BC * BT / ITEMS)")
  add("  KG_SHARED float win[BC * WS];")
  -- channels-last (lanes on consecutive channels): the block's BC x K
  -- weights, one contiguous run of w, staged once, rows KS = K | 1 floats
  -- apart; read per thread from global memory they cost a scattered load a
  -- tap.  Else a warp's lanes share a few channels and read w directly.
  local stagew = channels_last(g)
  if stagew then
    add(string.format("#define KS %d", g.K | 1))
    add("  KG_SHARED float wsm[BC * KS];")
  end
  block_coords(g, add)
  add("  const long t0 = tb * BT, c0 = cb * BC;")
  add(string.format("  const long p0 = t0 * %dL - %dL;", g.S, g.P))
  local xval = kg.load(spec, x.dtype, x.cname, offs(x, { "b", "c", "p" }))
  if g.ln then
    -- ln_dwconv's fallback: each window row's mean and rstd over all C
    -- channels from global memory (two passes; every channel tile of the
    -- row reads them again), then the window staged normalised
    local ln, lx = g.ln, g.ln.lx
    local xc = kg.load(spec, lx.dtype, lx.cname, offs(lx, { "b", "p", "c" }))
    add("  KG_SHARED float lnm[WIN], lnr[WIN];")
    add(string.format([[
  for (int wi = tid; wi < WIN; wi += NT) {
    const long p = p0 + wi;
    float mean = 0.0f, rstd = 0.0f;
    if (p >= 0 && p < %dL) {
      float s = 0.0f, q = 0.0f;
      for (long c = 0; c < %dL; c++) s += %s;
      mean = s / %s;
      for (long c = 0; c < %dL; c++) { const float d = %s - mean; q += d * d; }
      rstd = 1.0f / %s(q / %s + %s);
    }
    lnm[wi] = mean;
    lnr[wi] = rstd;
  }
  KG_BARRIER();]], g.T, g.C, xc, kg.float(g.C), g.C, xc, spec.backend == "cuda" and "sqrtf" or "sqrt",
      kg.float(g.C), kg.float(ln.eps)))
    xval = string.format("(%s - lnm[wi]) * lnr[wi] * %s + %s", xval,
      kg.load(spec, ln.gamma.dtype, ln.gamma.cname, offs(ln.gamma, { "c" })),
      kg.load(spec, ln.beta.dtype, ln.beta.cname, offs(ln.beta, { "c" })))
  end
  -- stage the window, in the input's memory order
  local V = not g.ln and vec_width(spec, g)
  if V then
    -- V channels of one position per 16-byte load, where BC is whole
    -- vectors (BC is a #define)
    local ct = kg.ctype(spec, x.dtype)
    local cvt = x.dtype == "f16" and "__half2float(h[j])" or
      x.dtype == "bf16" and "__bfloat162float(h[j])" or "h[j]"
    add(string.format([[
#if BC %% %d == 0
  for (int e = tid; e < BC / %d * WIN; e += NT) {
    const int cv = e %% (BC / %d), wi = e / (BC / %d);
    const long c = c0 + cv * %d, p = p0 + wi;
    uint4 raw = make_uint4(0u, 0u, 0u, 0u);
    if (c < %dL && p >= 0 && p < %dL) raw = *(const uint4 *)(%s + (%s));
    const %s *h = (const %s *)&raw;
    #pragma unroll
    for (int j = 0; j < %d; j++) win[(cv * %d + j) * WS + wi] = %s;
  }
#else]], V, V, V, V, V, g.C, g.T, x.cname, offs(x, { "b", "c", "p" }), ct, ct, V, V, cvt))
  end
  add("  for (int e = tid; e < BC * WIN; e += NT) {")
  if channels_last(g) then
    add("    const int ci = e % BC, wi = e / BC;")
  else
    add("    const int ci = e / WIN, wi = e % WIN;")
  end
  add("    const long c = c0 + ci, p = p0 + wi;")
  add(string.format("    win[ci * WS + wi] = (c < %dL && p >= 0 && p < %dL) ? %s : 0.0f;", g.C, g.T, xval))
  add("  }")
  if V then add("#endif") end
  if stagew then
    add(string.format("  for (int e = tid; e < BC * %d; e += NT) {", g.K))
    add(string.format("    const int ci = e / %d, k = e %% %d;", g.K, g.K))
    add(string.format("    wsm[ci * KS + k] = c0 + ci < %dL ? %s : 0.0f;", g.C,
      kg.load(spec, w.dtype, w.cname, offs(w, { "c0 + ci", "0", "k" }))))
    add("  }")
  end
  add("  KG_BARRIER();")
  local wload = stagew and "wsm[ci * KS + k]" or kg.load(spec, w.dtype, w.cname, offs(w, { "c", "0", "k" }))
  if run then
    emit_run(spec, g, add, wload)
    return table.concat(L, "\n")
  end
  add("  const int ci = tid / (BT / ITEMS), ti = tid % (BT / ITEMS);")
  add("  const long c = c0 + ci;")
  add(string.format("  if (c >= %dL) return;", g.C))
  taps(spec, g, add, wload)
  add("  for (int it = 0; it < ITEMS; it++) {")
  add("    const int tt = ti + it * (BT / ITEMS);")
  add("    const long t = t0 + tt;")
  add(string.format("    if (t < %dL) {", g.Tout))
  add("      float acc = bv;")
  add(string.format("      const int wb = ci * WIN + tt * %d;", g.S))
  add(string.format("      for (int k = 0; k < %d; k++) acc += wk[k] * win[wb + k * %d];", g.K, g.D))
  add("      " .. kg.store(spec, y.dtype, y.cname, offs(y, { "b", "c", "t" }), "acc"))
  add("    }")
  add("  }")
  return table.concat(L, "\n")
end

-- path = lanes: thread tid takes channel c0 + tid % BC (lanes along the
-- contiguous channels of a channels-last input, so a warp's load is one
-- run of the row) and the ITEMS consecutive outputs from t0 + (tid / BC) *
-- ITEMS; it streams the run's inputs from global memory one position at a
-- time, adding each into every sum it feeds (no shared-memory window: the
-- block's threads overlap in time, and their halo re-reads hit the cache)
local function emit_lanes(spec, g)
  local x, w = g.x, g.w
  local L = {}
  local function add(s) L[#L + 1] = s end
  add(string.format("#define RUN ((ITEMS - 1) * %d + %d)", g.S, (g.K - 1) * g.D + 1))
  block_coords(g, add)
  add("  const int ci = tid % BC, ti = tid / BC;")
  add("  const long c = cb * BC + ci, tr = tb * BT + (long)ti * ITEMS;")
  add(string.format("  if (c >= %dL || tr >= %dL) return;", g.C, g.Tout))
  taps(spec, g, add, kg.load(spec, w.dtype, w.cname, offs(w, { "c", "0", "k" })))
  add("  float acc[ITEMS];")
  add("  #pragma unroll")
  add("  for (int it = 0; it < ITEMS; it++) acc[it] = bv;")
  add(string.format("  const long p0 = tr * %dL - %dL;", g.S, g.P))
  add("  #pragma unroll")
  add("  for (int j = 0; j < RUN; j++) {")
  add("    const long p = p0 + j;")
  add(string.format("    const float xj = p >= 0 && p < %dL ? %s : 0.0f;", g.T,
    kg.load(spec, x.dtype, x.cname, offs(x, { "b", "c", "p" }))))
  add("    #pragma unroll")
  add("    for (int it = 0; it < ITEMS; it++) {")
  add(string.format("      const int kk = j - it * %d;", g.S))
  add(string.format("      if (kk >= 0 && kk %% %d == 0 && kk / %d < %d) acc[it] += wk[kk / %d] * xj;",
    g.D, g.D, g.K, g.D))
  add("    }")
  add("  }")
  run_store(spec, g, add)
  return table.concat(L, "\n")
end

-- path = mma, y channels-last: the block's results, staged in the window's
-- rows (a row a channel), leave along the channels, 8 channels of one step
-- a 16-byte store where y's channels are contiguous, whole vectors and
-- aligned, else a value a thread with consecutive threads on consecutive
-- channels.  Rows WS = BT + 16 KS - 6 halves apart: 8 rows are 8 words
-- apart mod 32 banks (any KS), so a warp's gathers for 16 or 32 channels
-- do not conflict
local function emit_mma_out(spec, g, add)
  local y = g.y
  add("  KG_BARRIER();")
  add(string.format("  unsigned short *yr = (unsigned short *)%s;", y.cname))
  local vec = chan_vec(spec, g, y, g.Tout)
  if vec then
    -- (two steps a thread: each channel's pair t, t + 1 is one 32-bit load,
    -- BT and WS being even, and byte permutes part the pairs into the two
    -- steps' vectors: half the shared loads of a 16-bit gather, whose
    -- instructions had the shared-memory pipe throttling the kernel, MIO
    -- stalls 3x the channel-first conv's; docs/performance.md attempt 37)
    local function permuted(sel)
      local p = {}
      for j = 0, 3 do p[#p + 1] = string.format("__byte_perm(w[%d], w[%d], %s)", 2 * j, 2 * j + 1, sel) end
      return "make_uint4(" .. table.concat(p, ", ") .. ")"
    end
    add(string.format([[
#if BC %% 8 == 0
  for (int e = tid; e < BC / 8 * (BT / 2); e += BLOCK) {
    const int cv = e %% (BC / 8), tt = e / (BC / 8) * 2;
    const long c = c0 + cv * 8, t = t0 + tt;
    if (c >= %dL || t >= %dL) continue;
    const unsigned short *col = win + cv * 8 * WS + tt;
    unsigned w[8];
    #pragma unroll
    for (int j = 0; j < 8; j++) w[j] = *(const unsigned *)(col + j * WS);
    %s
    if (t + 1 < %dL) %s
  }
#else]], g.C, g.Tout, kg.st16(spec, string.format("yr + (%s)", offs(y, { "b", "c", "t" })), permuted(PERM_LO)),
      g.Tout, kg.st16(spec, string.format("yr + (%s)", offs(y, { "b", "c", "t + 1" })), permuted(PERM_HI))))
  end
  add("  for (int e = tid; e < BC * BT; e += BLOCK) {")
  add("    const int ci = e % BC, tt = e / BC;")
  add("    const long c = c0 + ci, t = t0 + tt;")
  add(string.format("    if (c < %dL && t < %dL) yr[%s] = win[ci * WS + tt];", g.C, g.Tout,
    offs(y, { "b", "c", "t" })))
  add("  }")
  if vec then add("#endif") end
end

-- path = mma under ln_dwconv: the LayerNorm of the window's rows, in
-- place, before the conv.  Each block finds the mean and M2 of each row
-- over its BC channels, the cluster's blocks exchange them through
-- distributed shared memory and combine them exactly (Chan et al., equal
-- counts at every step), and the window is normalised, rounded to x's type
-- as the unfused LayerNorm stores it; positions outside x stay zero (the
-- conv's padding of the normalised rows).  Rows as pairs of steps: lnp and
-- lnr hold (mean, M2) and (mean, rstd) of steps 2j, 2j + 1 as one float4.

-- (the end of an ln_dwconv kernel: its peers are done with its shared
-- memory)
local LN_WAIT = [[  asm volatile("barrier.cluster.wait.acquire.aligned;\n" ::: "memory");]]

-- the packed pair type of a's 16-bit dtype, its unpacking to float2 and
-- the packing of two floats (rounded)
local function half2_types(a)
  if a.dtype == "f16" then return "__half2", "__half22float2", "__floats2half2_rn" end
  return "__nv_bfloat162", "__bfloat1622float2", "__floats2bfloat162_rn"
end

-- path = mma where each 16-byte load holds 8 channels of a step, as
-- emit_mma_out's gather: the loads of steps wi and wi + 1 (WS being even),
-- and each channel's pair of them one 32-bit store, parted by byte
-- permutes (half the shared stores).  With tail (ln_dwconv's statistics,
-- whose shuffles need every lane) every thread takes every round, `on`
-- saying whether its element is real, and tail follows each round's store
local function emit_v_stage(spec, g, add, in0, in1, tail)
  local x = g.x
  local on = tail and "on && " or ""
  local ind = tail and "  " or ""
  add("#if BC % 8 == 0")
  if tail then
    add("  #pragma unroll 2")
    add("  for (int e0 = 0; e0 < BC / 8 * (WS / 2); e0 += BLOCK) {")
    add("    const int e = e0 + tid;")
    add("    const bool on = e < BC / 8 * (WS / 2);")
  else
    add("  for (int e = tid; e < BC / 8 * (WS / 2); e += BLOCK) {")
  end
  add("    const int cv = e % (BC / 8), wi = e / (BC / 8) * 2;")
  add("    const long c = c0 + cv * 8, p = p0 + wi;")
  add("    uint4 r0 = make_uint4(0u, 0u, 0u, 0u), r1 = r0;")
  add(string.format("    if (%s%s) r0 = *(const uint4 *)(xr + (%s));", on, in0, offs(x, { "b", "c", "p" })))
  add(string.format("    if (%s%s) r1 = *(const uint4 *)(xr + (%s));", on, in1, offs(x, { "b", "c", "p + 1" })))
  add("    const unsigned *h0 = (const unsigned *)&r0, *h1 = (const unsigned *)&r1;")
  if tail then add("    if (on) {") end
  add(ind .. "    unsigned short *wc = win + cv * 8 * WS + wi;")
  add(ind .. "    #pragma unroll")
  add(ind .. "    for (int j = 0; j < 4; j++) {")
  add(string.format("%s      *(unsigned *)(wc + 2 * j * WS) = __byte_perm(h0[j], h1[j], %s);", ind, PERM_LO))
  add(string.format("%s      *(unsigned *)(wc + (2 * j + 1) * WS) = __byte_perm(h0[j], h1[j], %s);", ind, PERM_HI))
  add(ind .. "    }")
  if tail then
    add("    }")
    add(tail)
  end
  add("  }")
  add("#else")
end

-- ln_dwconv's tail of emit_v_stage: each lane reduces its 8 channels of
-- steps wi and wi + 1 to a mean and M2, then the BC / 8 lanes that hold a
-- step's BC channels (adjacent lanes: e runs over channels first) combine
-- theirs by xor shuffles
local function ln_stats(g)
  local pk, unpk = half2_types(g.x)
  return string.format([[
    float2 fa[4], fb[4];
    float ma = 0.0f, mb = 0.0f, qa = 0.0f, qb = 0.0f;
    #pragma unroll
    for (int j = 0; j < 4; j++) {
      fa[j] = %s(*(const %s *)&h0[j]);
      fb[j] = %s(*(const %s *)&h1[j]);
      ma += fa[j].x + fa[j].y;
      mb += fb[j].x + fb[j].y;
    }
    ma *= 0.125f;
    mb *= 0.125f;
    #pragma unroll
    for (int j = 0; j < 4; j++) {
      qa += (fa[j].x - ma) * (fa[j].x - ma) + (fa[j].y - ma) * (fa[j].y - ma);
      qb += (fb[j].x - mb) * (fb[j].x - mb) + (fb[j].y - mb) * (fb[j].y - mb);
    }
    /* two halves of 8 o values each: M2 gains (their means' gap)^2 * 4 o */
    #pragma unroll
    for (int o = 1; o < BC / 8; o <<= 1) {
      const float pa = __shfl_xor_sync(0xffffffffu, ma, o), pqa = __shfl_xor_sync(0xffffffffu, qa, o);
      const float pb = __shfl_xor_sync(0xffffffffu, mb, o), pqb = __shfl_xor_sync(0xffffffffu, qb, o);
      qa += pqa + (ma - pa) * (ma - pa) * (4.0f * o);
      qb += pqb + (mb - pb) * (mb - pb) * (4.0f * o);
      ma = 0.5f * (ma + pa);
      mb = 0.5f * (mb + pb);
    }
    if (on && cv == 0) *(float4 *)(lnp + 2 * wi) = make_float4(ma, qa, mb, qb);]], unpk, pk, unpk, pk)
end

-- else, after the window is staged a value at a time: a thread a step,
-- over the BC channels of its window row (shifted by the row's first
-- value, so that the sum of squares does not cancel)
local function emit_mma_ln_sums(spec, g, add)
  local h2f = g.x.dtype == "f16" and "__half2float(__ushort_as_half(%s))" or
    "__bfloat162float(__ushort_as_bfloat16(%s))"
  add(string.format([[
  KG_BARRIER();
  for (int wi = tid; wi < WS; wi += BLOCK) {
    const float k0 = %s;
    float s1 = 0.0f, s2 = 0.0f;
    #pragma unroll 8
    for (int ci = 0; ci < BC; ci++) {
      const float d = %s - k0;
      s1 += d;
      s2 += d * d;
    }
    const float ml = s1 * (1.0f / BC);
    lnp[2 * wi] = k0 + ml;
    lnp[2 * wi + 1] = s2 - s1 * ml;
  }]], string.format(h2f, "win[wi]"), string.format(h2f, "win[ci * WS + wi]")))
end

-- after the window, the taps and the partial statistics: the cluster's
-- exchange, then the window normalised by NGQ groups of threads a pair
-- of steps, each group over its share of the channels (a pair's mean and
-- rstd held in registers)
local function emit_mma_ln(spec, g, add)
  local ln = g.ln
  local pk, unpk, cv = half2_types(g.x)
  local function ok(wi, p)
    return string.format("%s < WV && %s >= 0 && %s < %dL", wi, p, p, g.T)
  end
  add(string.format([[
  for (int e = tid; e < BC; e += BLOCK) {
    lng[e] = %s;
    lng[BC + e] = %s;
  }
  kg_dw_cluster_sync();
  for (int j = tid; j < WS / 2; j += BLOCK) {
    /* block k's part joins the k parts before it (k BC values): the mean
       moves by d / (k + 1), M2 gains the part's and d^2 BC k / (k + 1) */
    float4 st = kg_dw_ld_peer4(kg_dw_peer(lnp + 4 * j, 0u));
    float ma = st.x, qa = st.y, mb = st.z, qb = st.w;
    #pragma unroll 4
    for (int k = 1; k < NCB; k++) {
      st = kg_dw_ld_peer4(kg_dw_peer(lnp + 4 * j, (unsigned)k));
      const float da = st.x - ma, db = st.z - mb, f = 1.0f / (k + 1);
      ma += da * f;
      mb += db * f;
      qa += st.y + da * da * ((float)BC * k * f);
      qb += st.w + db * db * ((float)BC * k * f);
    }
    *(float4 *)(lnr + 4 * j) = make_float4(ma, 1.0f / sqrtf(qa / %s + %s), mb, 1.0f / sqrtf(qb / %s + %s));
  }
  /* this block is done with its peers' statistics: it tells them so (they
     wait for that before they exit, their shared memory staying readable
     until then) and goes on */
  asm volatile("barrier.cluster.arrive.release.aligned;\n" ::: "memory");
  KG_BARRIER();
  for (int e = tid; e < NGQ * (WS / 2); e += BLOCK) {
    const int j = e %% (WS / 2), wi = 2 * j;
    const long p = p0 + wi;
    const float4 st = *(const float4 *)(lnr + 4 * j);
    const bool ok0 = %s, ok1 = %s;
    #pragma unroll 4
    for (int ci = e / (WS / 2); ci < BC; ci += NGQ) {
      %s *const pp = (%s *)(win + ci * WS + wi);
      const float2 v = %s(*pp);
      const float ga = lng[ci], be = lng[BC + ci];
      *pp = %s(ok0 ? (v.x - st.x) * st.y * ga + be : 0.0f, ok1 ? (v.y - st.z) * st.w * ga + be : 0.0f);
    }
  }]],
    kg.load(spec, ln.gamma.dtype, ln.gamma.cname, offs(ln.gamma, { "c0 + e" })),
    kg.load(spec, ln.beta.dtype, ln.beta.cname, offs(ln.beta, { "c0 + e" })),
    kg.float(g.C), kg.float(ln.eps), kg.float(g.C), kg.float(ln.eps),
    ok("wi", "p"), ok("wi + 1", "p + 1"), pk, pk, unpk, cv))
end

-- path = mma (see the header): the window of one batch entry's BC channels
-- in shared memory as 16-bit rows, then each warp's channels on the
-- tensor cores
local function emit_mma(spec, g)
  local x, w, y, bias = g.x, g.w, g.y, g.bias
  local KS = mma_ks(g)
  local L = {}
  local function add(s) L[#L + 1] = s end
  add(string.format("#define KS %d", KS))
  add(string.format("#define WS (BT + %d)", 16 * KS - 6))
  -- (the staging and the channels-last gather move steps in pairs)
  add("#if BT % 2 != 0\n#error \"dwconv mma: BT even\"\n#endif")
  -- the positions a block's outputs read: past them the row is zero
  add(string.format("#define WV (BT + %d)", (g.K - 1) * g.D))
  local ln = g.ln
  if ln then
    -- (ln_mma_smem's layout; the cluster's blocks take the channel tiles
    -- of one row tile, channel tile fastest)
    add(string.format("#define NCB (%d / BC)", g.C))
    add(string.format("#define LN_OFF ((BC * (WS + %d) * 2 + 15) / 16 * 16)", g.K))
    add("#define NGQ (BLOCK / (WS / 2) > 0 ? BLOCK / (WS / 2) : 1)")
    add("  extern __shared__ __align__(16) unsigned char kg_dw_smem[];")
    add("  unsigned short *const win = (unsigned short *)kg_dw_smem;")
    add("  float *const lnp = (float *)(kg_dw_smem + LN_OFF), *const lnr = lnp + 2 * WS, *const lng = lnr + 2 * WS;")
    add("  const int tid = (int)KG_TID(0);")
    add("  long bid = KG_BID(0);")
    add("  const long cb = bid % NCB; bid /= NCB;")
    add(string.format("  const long tb = bid %% ((%dL + BT - 1) / BT);", g.Tout))
    add(string.format("  const long b = bid / ((%dL + BT - 1) / BT);", g.Tout))
  else
    add("  __shared__ __align__(16) unsigned short win[BC * WS];")
    block_coords(g, add)
  end
  local staged = not y_contig(g)
  add("  const long t0 = tb * BT, c0 = cb * BC;")
  add(string.format("  const long p0 = t0 - %dL;", g.P))
  add(string.format("  const unsigned short *xr = (const unsigned short *)%s;", x.cname))
  local function inxf(wi, p)
    return string.format("%s < WV && c < %dL && %s >= 0 && %s < %dL", wi, g.C, p, p, g.T)
  end
  local inx = inxf("wi", "p")
  local V = vec_width(spec, g)
  if V then emit_v_stage(spec, g, add, inx, inxf("wi + 1", "p + 1"), ln and ln_stats(g)) end
  add("  for (int e = tid; e < BC * WS; e += BLOCK) {")
  if channels_last(g) then
    add("    const int ci = e % BC, wi = e / BC;")
  else
    add("    const int ci = e / WS, wi = e % WS;")
  end
  add("    const long c = c0 + ci, p = p0 + wi;")
  add(string.format("    win[ci * WS + wi] = %s ? xr[%s] : (unsigned short)0;", inx, offs(x, { "b", "c", "p" })))
  add("  }")
  if ln then emit_mma_ln_sums(spec, g, add) end
  if V then add("#endif") end
  -- the block's BC x K taps, staged beside the window, so that each
  -- channel's W fragments are built from shared memory and not from a
  -- dependent global load a channel
  add(ln and "  unsigned short *const wsm = win + BC * WS;" or
    string.format("  __shared__ unsigned short wsm[BC * %d];", g.K))
  add(string.format("  for (int e = tid; e < BC * %d; e += BLOCK) {", g.K))
  add(string.format("    const long c = c0 + e / %d;", g.K))
  add(string.format("    wsm[e] = c < %dL ? ((const unsigned short *)%s)[%s] : (unsigned short)0;", g.C, w.cname,
    offs(w, { "c", "0", "e % " .. g.K })))
  add("  }")
  if ln then emit_mma_ln(spec, g, add) end
  add("  KG_BARRIER();")
  local ty = x.dtype == "f16" and "f16" or "bf16"
  add(string.format([[
  const int lane = tid & 31, q = lane >> 2, r = lane & 3;
  const unsigned short *wr = wsm;  /* %s staged */
  for (int ci = tid >> 5; ci < BC; ci += BLOCK / 32) {
    const long c = c0 + ci;
    if (c >= %dL) break;
    /* this lane's entries of W, W[kk][n] = w[c, (kk - n) / %d]: rows kk =
       16 s + 8 h + 2 r + j, column n = q */
    unsigned bw[KS][2];
    #pragma unroll
    for (int s = 0; s < KS; s++)
      #pragma unroll
      for (int h = 0; h < 2; h++) {
        unsigned v = 0;
        #pragma unroll
        for (int j = 0; j < 2; j++) {
          const int d = 16 * s + 8 * h + 2 * r + j - q;
          if (d >= 0 && d %% %d == 0 && d / %d < %d) v |= (unsigned)wr[%s] << (16 * j);
        }
        bw[s][h] = v;
      }
    const float bv = %s;
    const unsigned short *row = win + ci * WS + 2 * lane;
    for (int gi = 0; gi < BT / 128; gi++) {
      if (t0 + gi * 128 >= %dL) break;
      float d0 = bv, d1 = bv, d2 = bv, d3 = bv;
      #pragma unroll
      for (int s = 0; s < KS; s++) {
        const unsigned short *fa = row + gi * 128 + 16 * s;
        const unsigned f0 = *(const unsigned *)fa, f1 = *(const unsigned *)(fa + 64);
        const unsigned f2 = *(const unsigned *)(fa + 8), f3 = *(const unsigned *)(fa + 72);
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.%s.%s.f32 "
                     "{%%0, %%1, %%2, %%3}, {%%4, %%5, %%6, %%7}, {%%8, %%9}, {%%0, %%1, %%2, %%3};"
                     : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
                     : "r"(f0), "r"(f1), "r"(f2), "r"(f3), "r"(bw[s][0]), "r"(bw[s][1]));
      }]],
    w.cname, g.C, g.D, g.D, g.D, g.K, "ci * " .. g.K .. " + d / " .. g.D,
    bias and kg.load(spec, bias.dtype, bias.cname, offs(bias, { "c" })) or "0.0f",
    g.Tout, ty, ty))
  -- lane's outputs t, t + 1 and t + 64, t + 65 (y has x's type): a pair a
  -- store where Tout is even (t is).  Channels-last, a pair a 32-bit store
  -- back into the channel's window row, over the inputs of outputs t and t
  -- + 64, which no later row tile reads (they read from gi * 128 + 128 on;
  -- __syncwarp: after every lane's fragment loads of this tile)
  local pk, _, cv = half2_types(y)
  if staged then
    add("      __syncwarp();")
    add(string.format("      *(%s *)((unsigned short *)row + gi * 128) = %s(d0, d1);", pk, cv))
    add(string.format("      *(%s *)((unsigned short *)row + gi * 128 + 64) = %s(d2, d3);", pk, cv))
    add("    }")
    add("  }")
    emit_mma_out(spec, g, add)
    if g.ln then add(LN_WAIT) end
    return table.concat(L, "\n")
  end
  add("      const long t = t0 + gi * 128 + 2 * lane;")
  add(string.format("      const long yo = (b * %dL + c) * %dL + t;", g.C, g.Tout))
  if g.Tout % 2 == 0 then
    add(string.format("      if (t < %dL) *(%s *)(%s + yo) = %s(d0, d1);", g.Tout, pk, y.cname, cv))
    add(string.format("      if (t + 64 < %dL) *(%s *)(%s + yo + 64) = %s(d2, d3);", g.Tout, pk, y.cname, cv))
  else
    for i, o in ipairs({ "0", "1", "64", "65" }) do
      add(string.format("      if (t + %s < %dL) %s", o, g.Tout,
        kg.store(spec, y.dtype, y.cname, "yo + " .. o, "d" .. (i - 1))))
    end
  end
  add("    }")
  add("  }")
  if g.ln then add(LN_WAIT) end
  return table.concat(L, "\n")
end

function T.emit(spec, design)
  local g = geometry(spec)
  local body = design.path == "tile" and emit_tile(spec, g, design) or
    design.path == "lanes" and emit_lanes(spec, g) or
    design.path == "mma" and emit_mma(spec, g) or emit_direct(spec, g)
  local out = { kg.prelude(spec) }
  out[#out + 1] = kg.comment(string.format(
    (g.ln and "LayerNorm over the channels (eps " .. tostring(g.ln.eps) .. "), then " or "") .. "depthwise conv1d: B %d, C %d, T %d -> %d, K %d, stride %d, padding %d, dilation %d%s%s",
    g.B, g.C, g.T, g.Tout, g.K, g.S, g.P, g.D, g.bias and ", bias" or "",
    channels_last(g) and ", channels-last input" or ""))
  local cluster = ""
  if g.ln and design.path == "mma" then
    out[#out + 1] = kg.cluster_helpers("kg_dw")
    cluster = string.format("__cluster_dims__(%d / BC, 1, 1) ", g.C)
  end
  out[#out + 1] = kg.line()
  out[#out + 1] = string.format([[
KG_KERNEL void %s%s(
    %s)
{
  KG_GRID_DEP();
%s
}
]], cluster, spec.kernel, kg.params(spec), body)
  return table.concat(out, "\n")
end

return T
