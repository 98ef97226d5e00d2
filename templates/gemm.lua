-- templates/gemm.lua -- every kernel whose template is "gemm": linear, matmul
-- and conv1d (implicit GEMM), and the fused patterns ln_gemm_gelu,
-- gemm_gelu, gated_tanh_residual, gemm_glu, linear_residual,
-- linear_scale_residual and conv1x1_residual (a residual added in the
-- epilogue, after a per-channel scale for linear_scale_residual).
--
-- The problem.  Every kernel is C[z, m, n] = sum_k A[z, m, k] * B[z, n, k]
-- followed by an epilogue, with z a batch (matmul's broadcast batch axes,
-- conv1d's groups), M rows, N columns and K the reduction.  analyze() turns
-- the spec into that form: an A and a B operand -- each a function from
-- (z, row, k) to a float expression, read through the arguments' strides and
-- offsets, so views (transposes, splits) cost nothing -- and an epilogue from
-- (z, m, n, accumulator) to stores.  The operands are
--   strided   x[z, r, k] = x[off + lin(z) + lin(r) + lin(k)] (linear, matmul,
--             conv1d with kernel 1 and no padding, the weights)
--   conv      the implicit-GEMM view of conv1d: row r = (b, t), k = (ci, kk),
--             reads x[b, g*Cin/G + ci, t*stride - padding + kk*dilation],
--             zero outside [0, T)
--   gated     sigmoid(y[b, c, t]) * tanh(y[b, C + c, t]) (the prologue of
--             gated_tanh_residual), read channel-first through strides
--   ln        LayerNorm of x over K (ln_gemm_gelu, design ln=prepass):
--             (x - mean[m]) * rstd[m] * gamma[k] + beta[k]
-- and with ln=fold the A operand stays raw x and B becomes w' = w * gamma:
-- the K loop also accumulates each row's sum and sum of squares and each
-- column's sum_k w'[n,k] and sum_k beta[k]*w[n,k], and the epilogue applies
--   out = rstd * (acc - mean * sum_k w'[n,k]) + sum_k beta[k] w[n,k] + b[n]
-- (simt: each thread keeps the sums of its own rows and columns in
-- registers and scales B as it multiplies; mma: a pass over the stage in
-- shared memory sums rows and columns and scales the B tile in place,
-- rounding w' to the storage type so the sums match what the mma sees;
-- wgmma: the same over its swizzled tiles, rows and columns at once, 16
-- bytes at a time; wgmma under sched=pp with load=panel, where a block
-- keeps its column tile: B's panel is scaled and its columns summed once a
-- block (fold_panel), each consumer sums its tile's rows from the landed A
-- stages beside its MMAs (fold_stats), and the register epilogue applies
-- the correction, the bias in the column sums, in two FMAs an output).
-- gemm_glu's B rows are arranged so that each thread holds column n of the
-- value half and column N+n of the gate half (the 2N-wide intermediate is
-- never stored): a tile of BN columns covers BN/2 output columns.
--
-- Three paths (design knob `path`):
--   simt  portable tiled FMA GEMM: A and B tiles of BK columns in shared
--         memory as float, (BM/TM) x (BN/TN) threads each computing TM x TN
--         outputs.  OpenCL, f32, and everything else.
--   mma   CUDA sm_80+: mma.sync tensor cores (inline PTX) with ldmatrix
--         fragments and fp32 accumulation, m16n8k16 for f16/bf16 and, for
--         f32, m16n8k8 TF32 three times per product (3xTF32, below, so the
--         error stays near f32's); WM x WN warps
--         each computing a (BM/WM) x (BN/WN) warp tile; a STAGES-deep ring of
--         shared-memory tiles ([row][BK + 16 bytes], padded so ldmatrix is
--         conflict-free) filled by cp.async (16 bytes, zero-filled at the
--         edges) when the operand is contiguous and 16-byte aligned along K,
--         else by a register path (load, compute the prologue, convert,
--         store).  On sm_90, SPLITK 2 or 4 splits K over the blocks of a
--         thread-block cluster (below, split_helpers) for problems whose
--         tiles alone leave the SMs short of blocks (M = 861 at B = 1).
--   wgmma CUDA sm_90 (compiled as sm_90a), f16/bf16, B contiguous along K:
--         Hopper's asynchronous warpgroup MMA (wgmma.mma_async m64nNk16).
--         WM x WN warpgroups of 128 threads, each a (BM/WM) x (BN/WN) tile
--         of m64 blocks.  A contiguous along K goes by cp.async into
--         the swizzled tiles below; A with contiguous rows (a conv over
--         [B, C, T], a transposed view) into M-major swizzled panels that
--         wgmma reads transposed; with design prologue=smem, gated's y and
--         LayerNorm's x land the same way and the prologue runs over the
--         landed tile in place, a K tile ahead of the MMAs (a_desc), and a
--         dilated or padded conv lands the raw input rows its K tile reads
--         beside the panel and a pass shifts each tap into it (conv_geom).
--         Any other A (prologue=regs, unaligned rows) is staged as on the
--         mma path and read into registers by ldmatrix;
--         B is copied by cp.async into the 128-byte-swizzled K-major layout
--         wgmma reads through a shared-memory descriptor (BK = 64: one
--         128-byte row per B row).  The MMAs of one stage run while the
--         next stage's loads are issued; stage s is refilled only once
--         every warpgroup has retired its MMAs on it.  Bias, scale and
--         GELU or GLU run on the accumulators in registers, and the
--         results leave through a 16-bit tile in shared memory in runs of
--         8 along the output's contiguous axis (16-byte stores), a
--         residual added on the way (reg_epilogue); where the runs are
--         not 16-byte aligned, and for gated's two outputs, the
--         accumulators go through an f32 tile (staged_epilogue).  MINB
--         caps the registers so that 1 or 2 blocks share an SM.
-- Design knob `prologue`: "regs" everywhere but wgmma, which may take
-- "smem" for gated_tanh_residual and ln=prepass (above).
-- Design knob `sched`: "sync" everywhere but wgmma, which may take "ws"
-- (warp-specialised) where A reaches it through a descriptor (LayerNorm
-- only as ln=prepass of an x contiguous along K): one more warpgroup, the
-- producer, issues every cp.async (one address per thread and K tile,
-- constant steps between its rows) and runs gated's prologue or
-- LayerNorm's normalisation over the landed tiles (the statistics first,
-- by the whole block, warp per row; gamma and beta land with each A tile
-- by cp.async; with LNC > 1 a cluster of LNC blocks takes adjacent column
-- tiles of one row tile and each computes BM / LNC rows' statistics, read
-- by the others through distributed shared memory); the consumers only wait
-- on a stage's mbarrier, issue its MMAs and release it.  No block barrier
-- in the K loop; with two or more consumer warpgroups setmaxnreg moves
-- the producer's registers to them.  Non-persistent: one tile per block.
-- Design knob `sched` "pp" (ping-pong): the same producer and two consumer
-- warpgroups in a persistent block (a block an SM), each consumer taking
-- every other tile of the block's walk whole (WM = WN = 1), so that one
-- runs its epilogue while the other runs its MMAs.  The ring runs on
-- across tiles; a turn mbarrier hands the K loop from one consumer to the
-- other (a consumer may wait on a stage's full barrier only while it is at
-- most one phase behind, which its predecessor's K loop guarantees); each
-- consumer stages its epilogue through its own tile (the staged one's f32
-- tile takes 64 rows a pass).  LayerNorm only as ln=fold with load=panel
-- and the register epilogue.
-- Design knob `load`: "cp" everywhere, and "tma" for the ws and pp
-- producers: thread 0 of the producer copies B's tile (and A's, where A
-- goes straight to its swizzled tile) with one TMA copy each
-- (cp.async.bulk.tensor) through a tensor map the runtime encodes at launch
-- (launch()'s tmaps, passed after the tensors), and the copy's bytes
-- complete the stage's full mbarrier; the TMA unit swizzles the tile as the
-- cp.async path does (128-byte swizzle) and zero-fills past M, N and K.
-- gemm_glu's B takes two copies per group of GEMM_GLU_G tile rows, one from
-- each half of the weight (a third tensor-map axis).  A with a prologue
-- still lands by the producer's cp.async.
-- load=mcast: TMA in thread-block clusters of two blocks that take
-- vertically adjacent tiles (row tiles 2 i and 2 i + 1 of one column tile):
-- each copies its own A and half of the B tile they share, multicast into
-- both blocks' stages, so B crosses L2 once per pair.  Each block's full
-- barrier expects its whole stage; a stage is free again only once the
-- consumers of both blocks have released it (they arrive on both blocks'
-- empty barriers, a warp at a time), and the pair meets at a cluster barrier after setting
-- up its barriers and before it exits.  A without a prologue only; the
-- pair's second tile may lie past M (zero-filled, not stored).
-- load=panel (sched=pp, A by TMA with no prologue, one B for every batch
-- entry): tma, but the persistent grid is a whole number of blocks a column
-- tile and the walk takes column tiles fastest, so a block keeps its column
-- tile: thread 0 copies that tile's whole K panel of B once (its own
-- mbarrier, gemm_bfull), the ring carries A alone, and the column vectors
-- load once a block.  B crosses L2 once a block, not once a tile.
-- load=tmares (sched=ws, A by TMA, a residual on the register epilogue):
-- tma, and the residual through the ring (res_tmap): after a tile's K
-- tiles thread 0 copies its BN / 64 chunks of 64 columns into the A parts
-- of the next ring slots, one TMA box each on the slot's full barrier; the
-- copy-out reads them there and hands the slots back.  Under sched=pp
-- (res_pp): the residual's tile into the consumer's own tile, where the
-- epilogue adds to it in place before the TMA store.
-- load=cp4 (mma, f32, an A read along M: the conv's view, a strided
-- view): A's tile fills by cp.async a value (4 bytes) at a time, zero
-- outside x, in the stage ring with B, so its loads run STAGES - 1 K tiles
-- ahead of the MMAs instead of the register path's one (loader_trans).
-- Design knob `ln`: "none" for every kernel but ln_gemm_gelu, which takes
-- "prepass" (per-row mean/rstd computed by each block before its K loop:
-- on the tensor-core paths with x contiguous along K a warp per row in one
-- shifted pass, ln_stats_warp; else two passes) or "fold" (above).
--
-- Arithmetic is f32 whatever the storage; loads and stores are
-- bounds-checked (zero fill), so no shape needs to be a tile multiple.

local T = {
  name = "gemm",
  backends = { "cuda", "opencl" },
  design = {
    ln = { "none", "prepass", "fold" },
    path = { "mma", "simt", "wgmma" },
    prologue = { "regs", "smem" },   -- wgmma: where A's prologue runs (a_desc)
    sched = { "sync", "ws", "pp" },  -- wgmma: one team, a producer warpgroup (ws), or that and
                                     -- two consumers on alternate tiles of a persistent block (pp)
    load = { "cp", "tma", "mcast", "cp4", "panel", "tmares" }, -- ws/pp: the producer copies by
                                     -- cp.async, by TMA, or by TMA multicast to a cluster of two
                                     -- blocks sharing B; cp4: mma's f32 A rows by cp.async, a
                                     -- value at a time; panel (pp): A by TMA, B's whole K panel
                                     -- once; tmares: tma, and the residual by TMA (ws: through
                                     -- the ring; pp: into the consumer's tile)
  },
  tuning = {
    BM = { 16, 32, 64, 128, 256 },
    BN = { 16, 32, 64, 128, 256 },
    BK = { 8, 16, 32, 64 },
    TM = { 1, 2, 4, 8 },          -- simt: rows per thread
    TN = { 1, 2, 4, 8 },          -- simt: columns per thread
    WM = { 1, 2, 4 },             -- mma: warps along M (wgmma: warpgroups)
    WN = { 1, 2, 4 },             -- mma: warps along N (wgmma: warpgroups)
    STAGES = { 1, 2, 3, 4, 5 },   -- shared-memory pipeline depth (simt: 1; mma: 2 to 4; wgmma: 3 to 5)
    MINB = { 1, 2 },              -- wgmma: blocks per SM the registers are capped for
    SPLITK = { 1, 2, 4 },         -- mma on sm_90: blocks of a cluster sharing one tile's K
    LNC = { 1, 2, 4, 8 },         -- ws LayerNorm: blocks of a cluster sharing a row tile's statistics
  },
}

-- small helpers -------------------------------------------------------------

local function lit(n) return string.format("%dL", n) end

-- substitute $name in s from t (every name must be present)
local function fill(s, t)
  return (s:gsub("%$([%a_][%w_]*)", function(k)
    local v = t[k]
    if v == nil then error("fill: no value for $" .. k, 2) end
    return tostring(v)
  end))
end

-- index dims {size, stride} (outer to inner): drop size-1 axes, merge axes
-- that are contiguous with each other
local function merge(dims)
  local out = {}
  for _, d in ipairs(dims) do
    local size, stride = d[1], d[2]
    if size ~= 1 then
      local last = out[#out]
      if last and last[2] == size * stride then
        last[1], last[2] = last[1] * size, stride
      else
        out[#out + 1] = { size, stride }
      end
    end
  end
  return out
end

-- the terms of sum_i digit_i(e) * stride_i for e split over dims (e is
-- assumed in range, so the outermost digit needs no modulo)
--
-- With I32 set (every argument of the kernel spans fewer than 2^31
-- elements, so every address term does) the terms are 32-bit: the divisions
-- of a 64-bit index by a constant cost many instructions and registers.
local I32 = false
local function lin(e, dims, terms)
  local prod = 1
  local L = I32 and tostring or lit
  if I32 then e = "(int)(" .. e .. ")" end
  for i = #dims, 1, -1 do
    local size, stride = dims[i][1], dims[i][2]
    if stride ~= 0 then
      local d
      if i == 1 then
        d = prod == 1 and e or ("(" .. e .. ") / " .. L(prod))
      elseif prod == 1 then
        d = "(" .. e .. ") % " .. L(size)
      else
        d = "(" .. e .. ") / " .. L(prod) .. " % " .. L(size)
      end
      terms[#terms + 1] = stride == 1 and "(" .. d .. ")" or
        "(" .. d .. ") * " .. L(stride)
    end
    prod = prod * size
  end
  return terms
end

-- does every argument span fewer than 2^31 elements?
local function small(spec)
  for _, a in ipairs(spec.args) do
    local ext = a.offset + 1
    for i = 1, a.rank do ext = ext + (a.shape[i] - 1) * math.abs(a.strides[i]) end
    if ext >= 2147483647 then return false end
  end
  return true
end

-- a map: element (z, r, c) of an argument at
--   off + lin(z, zd) + lin(r, rd) + lin(c, cd)
local function map(arg, zd, rd, cd, off)
  return { arg = arg, off = (off or 0) + arg.offset, zd = merge(zd),
           rd = merge(rd), cd = merge(cd) }
end

local function addr(mp, z, r, c)
  local t = {}
  if mp.off ~= 0 then t[1] = I32 and tostring(mp.off) or lit(mp.off) end
  lin(z, mp.zd, t)
  lin(r, mp.rd, t)
  lin(c, mp.cd, t)
  if #t == 0 then return "0L" end
  return table.concat(t, " + ")
end

-- all strides of a map's z and row axes and its offset multiples of q, and
-- its column axes one contiguous run
local function aligned(mp, q)
  if mp.off % q ~= 0 then return false end
  for _, d in ipairs(mp.zd) do if d[2] % q ~= 0 then return false end end
  for _, d in ipairs(mp.rd) do if d[2] % q ~= 0 then return false end end
  return #mp.cd == 0 or (#mp.cd == 1 and mp.cd[1][2] == 1)
end

-- is the innermost column stride 1 (loads along k coalesce)?
local function kcontig(mp)
  local n = #mp.cd
  return n == 0 or mp.cd[n][2] == 1
end

-- rows contiguous in groups of g (8 unless given) and every other stride
-- and the offset a multiple of g: an aligned group of g rows is one
-- 16-byte load (8 halves, 4 floats)
local function mvec(mp, g)
  g = g or 8
  local n = #mp.rd
  if n == 0 or mp.rd[n][2] ~= 1 or mp.rd[n][1] % g ~= 0 or mp.off % g ~= 0 then
    return false
  end
  for _, d in ipairs(mp.zd) do if d[2] % g ~= 0 then return false end end
  for i = 1, n - 1 do if mp.rd[i][2] % g ~= 0 then return false end end
  for _, d in ipairs(mp.cd) do if d[2] % g ~= 0 then return false end end
  return true
end

local function prod(shape, i, j)
  local p = 1
  for q = i, j do p = p * shape[q] end
  return p
end

-- the analysis: spec -> problem -----------------------------------------------

local argof = kg.argof

-- leading (row) dims of an argument: axes i..j
local function dims_of(a, i, j)
  local d = {}
  for q = i, j do d[#d + 1] = { a.shape[q], a.strides[q] } end
  return d
end

local float_dt = { f32 = true, f16 = true, bf16 = true }

local function strided(mp)
  return { kind = "strided", mp = mp, fast_ok = true, kfast = kcontig(mp) }
end

local function analyze_linear(spec, n, P)
  local x, w = argof(spec, n.args[1]), argof(spec, n.args[2])
  local b = n.args[3] and argof(spec, n.args[3]) or nil
  local o = kg.result_arg(spec, n)
  if not (x and w and o) then return "operands are not kernel arguments" end
  if w.rank ~= 2 then return "linear weight of rank " .. w.rank end
  local K, N = x.shape[x.rank], w.shape[1]
  P.M, P.N, P.K, P.Z = x.numel // K, N, K, 1
  P.A = strided(map(x, {}, dims_of(x, 1, x.rank - 1), { { K, x.strides[x.rank] } }))
  P.B = strided(map(w, {}, { { N, w.strides[1] } }, { { K, w.strides[2] } }))
  P.out = map(o, {}, dims_of(o, 1, o.rank - 1), { { N, o.strides[o.rank] } })
  if b then P.bias = map(b, {}, {}, { { N, b.strides[1] } }) end
  P.epi = "plain"
end

local function analyze_matmul(spec, n, P)
  local a, b = argof(spec, n.args[1]), argof(spec, n.args[2])
  local o = kg.result_arg(spec, n)
  if not (a and b and o) then return "operands are not kernel arguments" end
  local ar, br = a.rank, b.rank
  local M = ar >= 2 and a.shape[ar - 1] or 1
  local K = a.shape[ar]
  local N = br >= 2 and b.shape[br] or 1
  local nb = o.rank - (ar >= 2 and 1 or 0) - (br >= 2 and 1 or 0)
  local za, zb, zo = {}, {}, {}
  local anb, bnb = math.max(ar - 2, 0), math.max(br - 2, 0)
  for j = 1, nb do
    local size = o.shape[j]
    local ja, jb = j - (nb - anb), j - (nb - bnb)
    za[j] = { size, (ja >= 1 and a.shape[ja] ~= 1) and a.strides[ja] or 0 }
    zb[j] = { size, (jb >= 1 and b.shape[jb] ~= 1) and b.strides[jb] or 0 }
    zo[j] = { size, o.strides[j] }
  end
  P.M, P.N, P.K, P.Z = M, N, K, prod(o.shape, 1, nb)
  P.A = strided(map(a, za, ar >= 2 and { { M, a.strides[ar - 1] } } or {},
    { { K, a.strides[ar] } }))
  P.B = strided(map(b, zb, br >= 2 and { { N, b.strides[br] } } or {},
    { { K, b.strides[br >= 2 and br - 1 or 1] } }))
  local om = ar >= 2 and { { M, o.strides[nb + 1] } } or {}
  local on = br >= 2 and { { N, o.strides[o.rank] } } or {}
  P.out = map(o, zo, om, on)
  P.epi = "plain"
end

-- (o: the result as the conv indexes it, when it is not n's own argument)
local function analyze_conv(spec, n, P, o)
  local x, w = argof(spec, n.args[1]), argof(spec, n.args[2])
  local b = n.args[3] and argof(spec, n.args[3]) or nil
  o = o or kg.result_arg(spec, n)
  if not (x and w and o) then return "operands are not kernel arguments" end
  if x.rank ~= 3 or w.rank ~= 3 or o.rank ~= 3 then return "conv1d needs rank-3 operands" end
  local at = n.attrs
  local stride, pad, dil, G = at.stride or 1, at.padding or 0, at.dilation or 1, at.groups or 1
  local Bn, Cin, Tin = x.shape[1], x.shape[2], x.shape[3]
  local Cout, Cig, KS = w.shape[1], w.shape[2], w.shape[3]
  local Tout = o.shape[3]
  local Cog = Cout // G
  local sxB, sxC, sxT = x.strides[1], x.strides[2], x.strides[3]
  P.M, P.N, P.K, P.Z = Bn * Tout, Cog, Cig * KS, G
  -- (a weight stored tap-major, [Cout, KS, Cin] seen through a transpose:
  -- k runs over (tap, ci), so that B's K is one contiguous run and a K tile
  -- of A, within one tap, is x's rows shifted by that tap: kind "convt")
  local tapm = KS > 1 and G == 1 and w.strides[2] == 1 and w.strides[3] == Cig
  if KS == 1 and pad == 0 then
    P.A = strided(map(x, { { G, Cig * sxC } }, { { Bn, sxB }, { Tout, stride * sxT } },
      { { Cig, sxC } }))
  else
    P.A = { kind = tapm and "convt" or "conv", x = x, off = x.offset, sxB = sxB, sxC = sxC,
            sxT = sxT, Tin = Tin, Tout = Tout, Cig = Cig, KS = KS, stride = stride, pad = pad,
            dil = dil, Bn = Bn, Cin = Cin, G = G, kfast = tapm and sxC == 1 }
  end
  local kd = { { Cig, w.strides[2] }, { KS, w.strides[3] } }
  if P.A.kind == "convt" then kd = { kd[2], kd[1] } end
  P.B = strided(map(w, { { G, Cog * w.strides[1] } }, { { Cog, w.strides[1] } }, kd))
  P.out = map(o, { { G, Cog * o.strides[2] } }, { { Bn, o.strides[1] }, { Tout, o.strides[3] } },
    { { Cog, o.strides[2] } })
  if b then P.bias = map(b, { { G, Cog * b.strides[1] } }, {}, { { Cog, b.strides[1] } }) end
  P.epi = "plain"
end

-- the operands of a channels-last linear: x [..., K] (rows: every other
-- axis), w [N, K]
local function linear_ab(P, x, w, N, K)
  P.A = strided(map(x, {}, dims_of(x, 1, x.rank - 1), { { K, x.strides[x.rank] } }))
  P.B = strided(map(w, {}, { { N, w.strides[1] } }, { { K, w.strides[2] } }))
end

-- a [B, C, T] tensor as rows (b, t) and columns c
local function chan_first(a, Bn, Tn, C)
  return map(a, {}, { { Bn, a.strides[1] }, { Tn, a.strides[3] } }, { { C, a.strides[2] } })
end

-- a vector of N per-column values (bias, scale)
local function colvec(v, N) return map(v, {}, {}, { { N, v.strides[1] } }) end

-- C expression: column vector v at column n (the bias: the sum of both
-- convs' biases where there are two, conv_cond_gate)
local function colload(spec, P, v, n)
  local x = kg.load(spec, v.arg.dtype, v.arg.cname, addr(v, "z", "0", n))
  if v == P.bias and P.bias2 then
    x = "(" .. x .. " + " .. kg.load(spec, P.bias2.arg.dtype, P.bias2.arg.cname, addr(P.bias2, "z", "0", n)) .. ")"
  end
  return x
end

-- the operands and bias of a 1x1 conv of x [B, CI, T] by w [R, CI, 1]:
-- rows (b, t), R columns
local function conv1x1_ab(P, x, w, b, Bn, Tn, CI, R)
  P.A = strided(chan_first(x, Bn, Tn, CI))
  P.B = strided(map(w, {}, { { R, w.strides[1] } }, { { CI, w.strides[2] } }))
  P.bias = colvec(b, R)
end

local function need(bind, names)
  for _, k in ipairs(names) do
    if not bind[k] then return "pattern binding '" .. k .. "' is missing" end
  end
end

local function analyze_fused(spec, P)
  local bd, d = spec.bind, spec.dims
  if spec.pattern == "gemm_glu" then
    local e = need(bd, { "x", "w", "b", "out" }); if e then return e end
    local x, w, b, o = bd.x, bd.w, bd.b, bd.out
    local N, K = d.N, d.K
    P.M, P.N, P.K, P.Z = d.B * d.M, N, K, 1
    P.A = strided(map(x, {}, dims_of(x, 1, 2), { { K, x.strides[3] } }))
    P.B = strided(map(w, {}, { { 2 * N, w.strides[1] } }, { { K, w.strides[2] } }))
    P.glu = true
    P.act = spec.ops.ACT
    P.bias = map(b, {}, {}, { { 2 * N, b.strides[1] } })
    P.out = map(o, {}, dims_of(o, 1, 2), { { N, o.strides[3] } })
    P.epi = "glu"
  elseif spec.pattern == "ln_gemm_gelu" then
    local e = need(bd, { "x", "gamma", "beta", "w", "b", "out" }); if e then return e end
    local x, w, b, o = bd.x, bd.w, bd.b, bd.out
    local N, K = d.N, d.K
    P.M, P.N, P.K, P.Z = d.B * d.M, N, K, 1
    local raw = map(x, {}, dims_of(x, 1, 2), { { K, x.strides[3] } })
    P.A = { kind = "ln", mp = raw, raw = strided(raw), kfast = kcontig(raw) }
    P.B = strided(map(w, {}, { { N, w.strides[1] } }, { { K, w.strides[2] } }))
    P.ln = { gamma = map(bd.gamma, {}, {}, { { K, bd.gamma.strides[1] } }),
             beta = map(bd.beta, {}, {}, { { K, bd.beta.strides[1] } }),
             eps = spec.params.eps or 1e-5 }
    P.approximate = spec.params.approximate or "none"
    P.bias = map(b, {}, {}, { { N, b.strides[1] } })
    P.out = map(o, {}, dims_of(o, 1, 2), { { N, o.strides[3] } })
    P.epi = "gelu"
  elseif spec.pattern == "conv_gelu" then
    -- the conv's [B, F, T] result is out [B, T, F] with axes 2 and 3 swapped
    local e = need(bd, { "x", "w", "b", "out" }); if e then return e end
    local n
    for _, m in ipairs(spec.nodes) do if m.op == "conv1d" then n = m end end
    if not n then return "conv_gelu without its conv1d" end
    e = analyze_conv(spec, n, P, kg.swap_axes(bd.out, 2, 3)); if e then return e end
    P.approximate = spec.params.approximate or "none"
    P.pscale = spec.params.scale
    P.epi = "gelu"
  elseif spec.pattern == "gemm_gelu" then
    local e = need(bd, { "x", "w", "b", "out" }); if e then return e end
    local N, K, o = d.N, d.K, bd.out
    P.M, P.N, P.K, P.Z = d.B * d.M, N, K, 1
    linear_ab(P, bd.x, bd.w, N, K)
    P.approximate = spec.params.approximate or "none"
    P.bias = colvec(bd.b, N)
    P.out = map(o, {}, dims_of(o, 1, 2), { { N, o.strides[3] } })
    P.epi = "gelu"
  elseif spec.pattern == "linear_residual" then
    local e = need(bd, { "x", "w", "r", "out" }); if e then return e end
    local x, r, o = bd.x, bd.r, bd.out
    local K, N = x.shape[x.rank], bd.w.shape[1]
    P.M, P.N, P.K, P.Z = x.numel // K, N, K, 1
    linear_ab(P, x, bd.w, N, K)
    P.out = map(o, {}, dims_of(o, 1, o.rank - 1), { { N, o.strides[o.rank] } })
    P.res = map(r, {}, dims_of(r, 1, r.rank - 1), { { N, r.strides[r.rank] } })
    if bd.b then P.bias = colvec(bd.b, N) end
    P.epi = "add"
  elseif spec.pattern == "linear_scale_residual" then
    local e = need(bd, { "x", "w", "b", "g", "r", "out" }); if e then return e end
    local Bn, Tn, K, N = d.B, d.T, d.K, d.N
    P.M, P.N, P.K, P.Z = Bn * Tn, N, K, 1
    linear_ab(P, bd.x, bd.w, N, K)
    local function cf(a)
      if spec.variant == "linear_scale_residual_t" then return chan_first(a, Bn, Tn, N) end
      return map(a, {}, dims_of(a, 1, 2), { { N, a.strides[3] } })
    end
    P.res = cf(bd.r)
    P.out = cf(bd.out)
    P.bias = colvec(bd.b, N)
    P.cscale = colvec(bd.g, N)
    P.epi = "add"
  elseif spec.pattern == "conv1x1_residual" then
    local e = need(bd, { "x", "w", "b", "r", "out" }); if e then return e end
    local Bn, CI, CO, Tn = d.B, d.CI, d.CO, d.T
    P.M, P.N, P.K, P.Z = Bn * Tn, CO, CI, 1
    conv1x1_ab(P, bd.x, bd.w, bd.b, Bn, Tn, CI, CO)
    P.res = chan_first(bd.r, Bn, Tn, CO)
    P.out = chan_first(bd.out, Bn, Tn, CO)
    P.epi = "add"
  elseif spec.pattern == "conv1x1_residual_gate" then
    -- (gemm_glu's pairing: output column c takes B rows c and C + c, and
    -- the residual's channels c and C + c)
    local e = need(bd, { "x", "w", "b", "r", "out" }); if e then return e end
    local Bn, CI, C, Tn = d.B, d.CI, d.C, d.T
    P.M, P.N, P.K, P.Z = Bn * Tn, C, CI, 1
    conv1x1_ab(P, bd.x, bd.w, bd.b, Bn, Tn, CI, 2 * C)
    P.glu = true
    P.res = chan_first(bd.r, Bn, Tn, 2 * C)
    P.out = chan_first(bd.out, Bn, Tn, C)
    P.epi = "gate"
  elseif spec.pattern == "conv_cond_gate" then
    -- (one GEMM: K runs over the dilated conv's k, then the condition's
    -- channels, operand kind "ksplit"; gemm_glu's pairing of the columns,
    -- the gate as the epilogue, no residual)
    local e = need(bd, { "x", "w", "b", "c", "wc", "bc", "out" }); if e then return e end
    local n
    for _, m in ipairs(spec.nodes) do
      if m.op == "conv1d" and argof(spec, m.args[1]) == bd.x then n = m end
    end
    if not n then return "conv_cond_gate without its dilated conv1d" end
    local Bn, C, H, Tn = d.B, d.C, d.H, 64 * d.TQ
    -- (the conv's [B, 2C, T] sum is not an argument: its shape for
    -- analyze_conv, which sets P.out from it; the real output follows)
    local y = { shape = { Bn, 2 * C, Tn }, strides = { 2 * C * Tn, Tn, 1 }, offset = 0, rank = 3 }
    e = analyze_conv(spec, n, P, y); if e then return e end
    if P.Z ~= 1 then return "conv_cond_gate: a grouped dilated conv" end
    local wc = bd.wc
    P.A = { kind = "ksplit", K1 = P.K, lo = P.A, hi = strided(chan_first(bd.c, Bn, Tn, H)), kfast = false }
    P.B = { kind = "ksplit", K1 = P.K, lo = P.B,
            hi = strided(map(wc, {}, { { 2 * C, wc.strides[1] } }, { { H, wc.strides[2] } })), kfast = false }
    P.K = P.K + H
    P.N = C
    P.glu = true
    P.bias = colvec(bd.b, 2 * C)
    P.bias2 = colvec(bd.bc, 2 * C)
    P.out = chan_first(bd.out, Bn, Tn, C)
    P.epi = "gate"
  elseif spec.pattern == "conv1x1_split_residual" then
    local e = need(bd, { "x", "z", "w", "b", "out", "skip" }); if e then return e end
    local Bn, C, CI, Tn = d.B, d.C, d.CI, d.T
    P.M, P.N, P.K, P.Z = Bn * Tn, 2 * C, CI, 1
    conv1x1_ab(P, bd.z, bd.w, bd.b, Bn, Tn, CI, 2 * C)
    local function cf(a) return chan_first(a, Bn, Tn, C) end
    P.res = cf(bd.x)
    P.out = cf(bd.out)
    P.skip = cf(bd.skip)
    P.C = C
    P.scale = spec.params.scale
    P.epi = "gated"
  elseif spec.pattern == "gated_tanh_residual" then
    local e = need(bd, { "x", "y", "w", "b", "out", "skip" }); if e then return e end
    local x, y, w, b = bd.x, bd.y, bd.w, bd.b
    local Bn, C, Tn = d.B, d.C, d.T
    P.M, P.N, P.K, P.Z = Bn * Tn, 2 * C, C, 1
    local rows = { { Bn, y.strides[1] }, { Tn, y.strides[3] } }
    P.A = { kind = "gated", gate = map(y, {}, rows, { { C, y.strides[2] } }),
            filt = map(y, {}, rows, { { C, y.strides[2] } }, C * y.strides[2]),
            kfast = false }
    P.B = strided(map(w, {}, { { 2 * C, w.strides[1] } }, { { C, w.strides[2] } }))
    P.bias = map(b, {}, {}, { { 2 * C, b.strides[1] } })
    local function cf(a) return chan_first(a, Bn, Tn, C) end
    P.res = cf(x)
    P.out = cf(bd.out)
    P.skip = cf(bd.skip)
    P.C = C
    P.scale = spec.params.scale
    P.epi = "gated"
  else
    return "pattern " .. tostring(spec.pattern) .. " is not a GEMM this template knows"
  end
end

local cache = setmetatable({}, { __mode = "k" })

local function analyze(spec)
  local P = cache[spec]
  if P then return P end
  P = {}
  local err
  if spec.kind == "fused" then
    err = analyze_fused(spec, P)
  elseif not kg.one_op(spec) then
    err = "expected one contraction node (and a transpose of its result), got " ..
      #spec.nodes .. " nodes"
  else
    local n = spec.nodes[1]
    if n.op == "linear" then err = analyze_linear(spec, n, P)
    elseif n.op == "matmul" then err = analyze_matmul(spec, n, P)
    elseif n.op == "conv1d" then err = analyze_conv(spec, n, P)
    else err = "op " .. n.op .. " is not a contraction" end
  end
  if not err then
    P.dt = spec.args[1].dtype
    P.vec = P.dt == "f32" and 4 or 8     -- elements in 16 bytes
    for _, a in ipairs(spec.args) do
      if not float_dt[a.dtype] then err = "dtype " .. a.dtype .. " of " .. a.cname end
      if a.dtype ~= P.dt then err = "mixed dtypes" end
    end
  end
  P.err = err
  cache[spec] = P
  return P
end

-- the raw operand: A when ln=fold, the LN input x for the statistics
local function operand(P, which, design)
  if which == "B" then return P.B end
  if P.A.kind == "ln" and design.ln == "fold" then return P.A.raw end
  return P.A
end

-- can operand o be copied with 16-byte cp.async?
local function fast(spec, P, o, design)
  return design.path ~= "simt" and o.kind == "strided" and P.K % P.vec == 0 and
    aligned(o.mp, P.vec)
end

-- mma: is A read along M (rows contiguous, k strided: a conv over [B, C, T],
-- a transposed view)?  Then its shared tile is [BK][BM + 8], filled along M
-- with 16-byte stores, and ldmatrix.trans reads the fragments.
local function a_trans(P, design)
  return design.path ~= "simt" and design.ln == "none" and not P.A.kfast and
    not fast(nil, P, P.A, design)
end

-- load=cp4 (mma, f32): is A read along M, and either the conv's view of an
-- f32 x (stride 1) or a strided f32 view, so that loader_trans lands it by
-- cp.async?
local function cp4_ok(P, design)
  local o = P.A
  if not a_trans(P, design) then return false end
  if o.kind == "conv" or o.kind == "convt" then
    return o.stride == 1 and o.Tout >= P.vec and o.x.dtype == "f32"
  end
  return o.kind == "strided" and o.mp.arg.dtype == "f32"
end

-- load=tma or panel: copies by TMA (load=panel is tma with B's panel kept)
local function tma_ld(design)
  return design.load == "tma" or design.load == "panel" or design.load == "tmares"
end

-- a tap-major conv (kind "convt") whose A tiles are TMA boxes of x, each
-- K tile tap j's at t + j * dilation - padding, zero outside x (the
-- padding): no pass over the landed stage.  16-bit, each K tile of 64
-- within one tap (Cin % 64 == 0), each 64-row panel or chunk within one
-- batch entry (Tout % 64 == 0), the address and strides 16-byte aligned.
--   "m": x's rows (t) contiguous: M-major panels (a_desc), boxes of x as
--        (t, channel, batch).  A box must start on 16 bytes along t: at an
--        odd start the copy is an illegal instruction on the H200
--        (docs/performance.md attempt 26), so the dilation and the
--        padding must be multiples of 8.  compiler/layout.c relays a
--        conv's weight tap-major under these same conditions: change both
--        together (tests/build_examples.sh checks that a relaid conv has
--        this path).
--   "k": x channel-last: K-major chunks of the swizzled tile (a_ss), boxes
--        of x as (channel, t, batch); the shift lies on an outer axis, so
--        any dilation and padding do.
-- nil: the generic loaders, in the same K order.
local function convt_box(P)
  local A = P.A
  if A.kind ~= "convt" or A.stride ~= 1 or A.x.dtype ~= P.dt or P.dt == "f32" then return nil end
  if A.Cig % 64 ~= 0 or A.Tout % 64 ~= 0 or A.sxB % 8 ~= 0 or A.off % 8 ~= 0 then return nil end
  if A.sxT == 1 then
    local ok = A.Tin % 8 == 0 and A.sxC % 8 == 0 and A.dil % 8 == 0 and A.pad % 8 == 0
    return ok and "m" or nil
  end
  if A.sxC == 1 then return A.Cin % 8 == 0 and A.sxT % 8 == 0 and "k" or nil end
  return nil
end

-- load=tma: can map mp be copied through a tensor map: its rows one axis,
-- K one contiguous run, at most one batch axis (the 16-byte alignment of
-- the address and strides is fast()'s)
local function tma_map(mp)
  if #mp.rd ~= 1 or #mp.cd ~= 1 or mp.cd[1][2] ~= 1 or #mp.zd > 1 then return false end
  return mp.rd[1][2] > 0 and (#mp.zd == 0 or mp.zd[1][2] >= 0)
end

-- P seen with operand A replaced (the halves of a "ksplit" operand)
local function with_A(P, A) return setmetatable({ A = A }, { __index = P }) end

-- conv_cond_gate (operand kind "ksplit") by TMA: the K tiles below K1 are
-- the dilated conv's convt boxes (x channel-last: "k", K-major chunks; or
-- x channel-first at dilations and paddings of multiples of 8: "m",
-- M-major panels), the rest M-major panels of the condition [B, H, T]
-- (tma_m's boxes, T a multiple of 64); B's two parts from two tensor maps.
-- Both kinds of A tile are 64-row chunks of 128-byte swizzled rows at the
-- same offsets, so the consumer's MMAs differ only in the descriptor's k
-- step and wgmma's transpose of A.
local function ksplit_tma(P, design)
  local A, B = P.A, P.B
  if A.kind ~= "ksplit" or design.path ~= "wgmma" or design.load ~= "tma" then return false end
  if (design.sched ~= "ws" and design.sched ~= "pp") or A.K1 % 64 ~= 0 then return false end
  if A.lo.kind ~= "convt" or not convt_box(with_A(P, A.lo)) then return false end
  local mp = A.hi.mp
  if mp.arg.dtype ~= P.dt or not mvec(mp, 8) or #mp.cd ~= 1 or #mp.zd ~= 0 or #mp.rd ~= 2 or
    mp.rd[1][2] <= 0 or mp.rd[2][1] % 64 ~= 0 or mp.cd[1][2] % 8 ~= 0 then
    return false
  end
  return tma_map(B.lo.mp) and tma_map(B.hi.mp)
end

-- wgmma: does A go straight from global to a swizzled tile that wgmma reads
-- through a descriptor (contiguous along K, no prologue), or through
-- registers (ldmatrix from the mma path's tiles)?
local function a_ss(P, design)
  if P.A.kind == "ksplit" then return ksplit_tma(P, design) end
  if P.A.kind == "convt" then
    return design.path == "wgmma" and tma_ld(design) and convt_box(P) == "k"
  end
  return design.path == "wgmma" and fast(nil, P, operand(P, "A", design), design)
end

-- load=tma: does A go by TMA too (straight to its swizzled tile)?  B always
-- does.
local function tma_a(P, design)
  if P.A.kind == "convt" or P.A.kind == "ksplit" then return a_ss(P, design) end
  return design.load ~= "cp" and a_ss(P, design) and tma_map(operand(P, "A", design).mp)
end

-- the index of arg among spec.args (launch()'s tmaps name it), found by
-- name: an output seen through its transpose is a copy (kg.swap_axes)
local function arg_index(spec, arg)
  for i, a in ipairs(spec.args) do if a.cname == arg.cname then return i end end
end

-- the tensor map of operand map mp (launch()'s tmaps): dims innermost
-- first, K then rows (gemm_glu's B: rows within a half, then the half),
-- then the batch axis unless it is broadcast; boxes of 64 values of K by
-- boxr rows
local function tmap_of(spec, P, mp, boxr, glu)
  local es = P.dt == "f32" and 4 or 2
  local t = { arg = arg_index(spec, mp.arg), dtype = P.dt, off = mp.off * es, swizzle = 128,
              dims = { mp.cd[1][1] }, strides = {}, box = { 64 } }
  local function axis(n, st, b)
    t.dims[#t.dims + 1], t.strides[#t.strides + 1], t.box[#t.box + 1] = n, st * es, b
  end
  local R, rs = mp.rd[1][1], mp.rd[1][2]
  if glu then
    axis(R // 2, rs, boxr)
    axis(2, R // 2 * rs, 1)
  else
    axis(R, rs, boxr)
  end
  if #mp.zd == 1 and mp.zd[1][2] ~= 0 then axis(mp.zd[1][1], mp.zd[1][2], 1) end
  return t
end

-- wgmma: can an A that a_ss refuses still reach wgmma through a
-- descriptor?  Its raw operand lands by cp.async in a swizzled tile of the
-- stage ring and any prologue is applied there, in place, once the stage
-- has landed; the MMAs then read the tile as a_ss's do, one group left in
-- flight, where the register path must wait for each stage's MMAs.
--   "k": the raw LayerNorm input is contiguous along K: a_ss's K-major tile
--        (ln=prepass normalises it in place)
--   "m": the rows are contiguous in aligned runs of 8 (a conv over
--        [B, C, T], a transposed view, gated's y, LayerNorm of a transposed
--        x): M-major panels of 64 rows, each k a 128-byte row of 8 chunks
--        swizzled like the K-major tile, which wgmma reads transposed
--        (f16/bf16 only, as is the whole path)
-- a dilated conv whose input rows (t) are contiguous in aligned runs of 8:
-- a_desc's "m" panels through a staging buffer.  Each K tile of 64 values
-- of k = (ci, tap) lands as the raw rows ci it reads, t0 - CV_PADA ..
-- t0 + BM + ..., 16 bytes at a time (zero outside [0, Tin)), and the pass
-- over the landed stage builds every panel row from its raw row, shifted
-- by tap * dilation - padding.  The raw rows are read once for all taps.
-- A row tile must not cross a batch entry (T % BM == 0, constraints).
local function conv_geom(P)
  local A = P.A
  if A.kind ~= "conv" or A.stride ~= 1 or A.sxT ~= 1 or A.x.dtype ~= P.dt then return nil end
  for _, v in ipairs({ A.Tin, A.Tout, A.sxB, A.sxC, A.off }) do
    if v % 8 ~= 0 then return nil end
  end
  local g = { KS = A.KS, dil = A.dil, pad = A.pad }
  g.pada = (A.pad + 7) // 8 * 8
  g.sh0 = g.pada - A.pad
  g.shmax = g.sh0 + (A.KS - 1) * A.dil
  g.nch = 0   -- raw rows a K tile of 64 reads, at most
  for i = 0, A.KS - 1 do
    local k0 = 64 * i
    g.nch = math.max(g.nch, (k0 + 63) // A.KS - k0 // A.KS + 1)
  end
  return g
end

-- the raw row's length in the staging buffer (the pass reads 16 bytes past
-- the last shifted run)
local function conv_w(g, BM)
  return (BM + g.shmax + 7) // 8 * 8 + 8
end

local function a_desc(P, design)
  if design.path ~= "wgmma" or design.ln == "fold" or a_ss(P, design) then return nil end
  local A = P.A
  if A.kind == "convt" then return tma_ld(design) and convt_box(P) == "m" and "m" or nil end
  -- with a prologue, the tuner picks: the pass in shared memory costs two
  -- barriers per K tile, the register path waits for each tile's MMAs
  if A.kind ~= "strided" and design.prologue ~= "smem" then return nil end
  local function runs(mp) return mp.arg.dtype == P.dt and mvec(mp, 8) end
  if A.kind == "ln" then
    if fast(nil, P, A.raw, design) then return "k" end
    return runs(A.mp) and "m" or nil
  elseif A.kind == "strided" then
    return runs(A.mp) and "m" or nil
  elseif A.kind == "gated" then
    return runs(A.gate) and runs(A.filt) and "m" or nil
  elseif A.kind == "conv" then
    return conv_geom(P) and "m" or nil
  end
  return nil
end

-- does each a_desc stage have a second buffer (gated's filter half, the
-- conv's raw rows)?
local function a_two(P, design)
  return a_desc(P, design) ~= nil and (P.A.kind == "gated" or P.A.kind == "conv")
end

-- load=tma: do the conv's raw rows land by one TMA copy (a box of
-- GEMM_CV_NCH rows of GEMM_CV_W values, zero outside x, constraints keep
-- it within 256 values) in place of the producer's cp.async?  One group
-- only: past a group's channels the copy would read the next group's.
local function conv_tma(P, design)
  return design.load == "tma" and a_desc(P, design) ~= nil and P.A.kind == "conv" and P.A.G == 1
end

-- launch()'s tensor map of the conv's raw rows (conv_tma): x as (t,
-- channel, batch), a box of the GEMM_CV_NCH rows a K tile reads,
-- GEMM_CV_W values each, unswizzled
local function conv_tmap(spec, P, cfg)
  local A, g = P.A, conv_geom(P)
  local es = P.dt == "f32" and 4 or 2
  return { arg = arg_index(spec, A.x), dtype = P.dt, off = A.off * es, swizzle = 0,
           dims = { A.Tin, A.Cin, A.Bn }, strides = { A.sxC * es, A.sxB * es },
           box = { conv_w(g, cfg.BM), g.nch, 1 } }
end

-- load=tma: does an A read along M (a_desc's "m" panels, no prologue) go
-- by TMA, a box of 64 rows by 64 k a panel, 128-byte swizzled as the
-- panels are?  Its rows are one contiguous axis, or (b, t) with t
-- contiguous and T a multiple of 64 (a panel within one batch entry): the
-- 1x1 convs over [B, C, T], a transposed view.
local function tma_m(P, design)
  if not tma_ld(design) or a_desc(P, design) ~= "m" then return false end
  if P.A.kind == "convt" then return true end
  if P.A.kind ~= "strided" then return false end
  local mp = P.A.mp
  if #mp.cd ~= 1 or #mp.zd > 1 or (#mp.zd == 1 and mp.zd[1][2] < 0) then return false end
  return #mp.rd == 1 or (#mp.rd == 2 and mp.rd[1][2] > 0 and mp.rd[2][1] % 64 == 0)
end

-- the tensor map of a map mp whose rows are contiguous (t of (b, t) rows,
-- one column axis): dims innermost first, t, the columns, then b and the
-- batch axis unless it is broadcast; boxes of 64 rows by cols columns, a
-- panel.  tma_m's A (the columns are K) and res_pp's channel-first
-- residual and output (mf_map)
local function rows_tmap(spec, P, mp, cols)
  local es = P.dt == "f32" and 4 or 2
  local R = mp.rd[#mp.rd]
  local t = { arg = arg_index(spec, mp.arg), dtype = P.dt, off = mp.off * es, swizzle = 128,
              dims = { R[1], mp.cd[1][1] }, strides = { mp.cd[1][2] * es }, box = { 64, cols } }
  local function axis(n, st)
    t.dims[#t.dims + 1], t.strides[#t.strides + 1], t.box[#t.box + 1] = n, st * es, 1
  end
  if #mp.rd == 2 then axis(mp.rd[1][1], mp.rd[1][2]) end
  if #mp.zd == 1 and mp.zd[1][2] ~= 0 then axis(mp.zd[1][1], mp.zd[1][2]) end
  return t
end

-- launch()'s tensor map of tma_m's A: rows_tmap's, or the tap-major conv's
-- boxes of x
local function tmap_m(spec, P)
  if P.A.kind == "convt" then
    -- (x as (t, channel, batch), a box of 64 t by 64 channels a panel; or
    -- channel-last (convt_box "k") as (channel, t, batch), 64 by 64 a chunk)
    local A = P.A
    local es = P.dt == "f32" and 4 or 2
    local t = { arg = arg_index(spec, A.x), dtype = P.dt, off = A.off * es, swizzle = 128,
                dims = { A.Tin, A.Cin, A.Bn }, strides = { A.sxC * es, A.sxB * es },
                box = { 64, 64, 1 } }
    if A.sxC == 1 then t.dims, t.strides = { A.Cin, A.Tin, A.Bn }, { A.sxT * es, A.sxB * es } end
    return t
  end
  return rows_tmap(spec, P, P.A.mp, 64)
end

-- elements of that buffer
local function a_fst(P, cfg)
  if not a_two(P, cfg) then return 0 end
  if P.A.kind == "gated" then return cfg.BM * cfg.BK end
  local g = conv_geom(P)
  return (g.nch * conv_w(g, cfg.BM) + 63) // 64 * 64   -- 128-byte stages (TMA)
end

-- is the output's row axis the contiguous one (a conv's [B, C, T] out)?
local function out_mfast(P)
  local mp = P.out
  local nc, nr = #mp.cd, #mp.rd
  if nc > 0 and mp.cd[nc][2] == 1 then return false end
  return nr > 0 and mp.rd[nr][2] == 1
end

-- can the staged epilogue move 8 outputs (16 bytes) at a time along the
-- output's contiguous axis?  Every map it touches (outputs, residual) must
-- be 16-byte aligned at each group of 8, and no group may straddle the end
-- of that axis, N, or gated's split at C.
local function vec_epi(P, mf)
  if P.dt ~= "f16" and P.dt ~= "bf16" or P.epi == "gate" then return false end
  for _, mp in ipairs({ P.out, P.skip or false, P.res or false }) do
    if mp and not (mf and mvec(mp) or not mf and aligned(mp, 8)) then return false end
  end
  if not mf and P.N % 8 ~= 0 then return false end
  return P.epi ~= "gated" or P.C % 8 == 0
end

-- does the epilogue run on the accumulators in registers (reg_epilogue)?
-- Where it has one output (no gated split), the outputs and the residual
-- move in aligned runs of 8 along the output's contiguous axis (vec_epi),
-- and gemm_glu's result is stored along its rows
local function reg_epi(P, design)
  if design.path ~= "wgmma" or (design.ln == "fold" and design.sched ~= "pp") then return false end
  local mf = out_mfast(P)
  if P.epi == "glu" then return not mf and vec_epi(P, false) end
  if P.epi == "gate" then
    -- (the channel-first gate: runs of 8 rows of the output and of both
    -- halves of the residual)
    return mf and (P.dt == "f16" or P.dt == "bf16") and mvec(P.out) and (not P.res or mvec(P.res))
  end
  return (P.epi == "plain" or P.epi == "gelu" or P.epi == "add" or P.epi == "gated") and
    vec_epi(P, mf)
end

-- does the register epilogue start the accumulators at the bias?  Not
-- under ln=fold, whose correction scales the accumulators: there the bias
-- is in the column sums (fold_panel)
local function bias_acc(P, design)
  return P.bias and design.ln ~= "fold"
end

-- a channel-first map (out_mfast: rows (b, t) with t contiguous, one
-- column axis) in the TMA store's panels of 64 rows: t in runs of 8 (16
-- bytes), the strides 16-byte multiples, a row tile's panels within one
-- batch entry (T % 64 == 0)
local function mf_map(mp)
  if #mp.cd ~= 1 or #mp.rd < 1 or #mp.rd > 2 or #mp.zd > 1 or not mvec(mp) then return false end
  if #mp.zd == 1 and mp.zd[1][2] < 0 then return false end
  return #mp.rd == 1 or mp.rd[2][1] % 64 == 0
end

-- the TMA store's panels of the tile at (m0, n0, z) in map mp: panel p's
-- coordinates as C expressions, and the panels' count and byte size: 64
-- columns a panel along its rows, or (out_mfast, rows_tmap) 64 rows
local function panel_coords(P, mp)
  local c
  if out_mfast(P) then
    if #mp.rd == 2 then
      local T = lit(mp.rd[2][1])
      c = { "(int)(m0 % " .. T .. " + p * 64)", "(int)n0", "(int)(m0 / " .. T .. ")" }
    else
      c = { "(int)(m0 + p * 64)", "(int)n0" }
    end
  else
    c = { "(int)(n0 + p * 64)", "(int)m0" }
  end
  if #mp.zd == 1 and mp.zd[1][2] ~= 0 then c[#c + 1] = "(int)z" end
  if out_mfast(P) then return c, "BM / 64", "GEMM_BNL * 128" end
  return c, "GEMM_BNL / 64", "BM * 128"
end

-- load=tmares under sched=pp: the residual's tile goes by TMA into the
-- consumer's own 16-bit tile, the TMA store's swizzled panels, once that
-- consumer's last store has read the tile (gemm_rfree); the producer copies
-- it a few K tiles into the tile's ring, on the tile's gemm_rfull, and the
-- epilogue adds each output to the residual in place (out = x + round(o))
-- before the TMA store.  The epilogue reads no global memory and stores by
-- TMA.  One residual of the output's dtype laid out as the output is
-- (along its rows, or channel-first in mf_map's panels), A by TMA.
local function res_pp(P, design)
  if design.load ~= "tmares" or design.sched ~= "pp" or not reg_epi(P, design) then return false end
  if not P.res or P.glu or P.epi == "gated" or P.epi == "gate" or P.res.arg.dtype ~= P.dt then return false end
  if out_mfast(P) then return mf_map(P.res) and mf_map(P.out) end
  return tma_map(P.res) and tma_map(P.out)
end

-- does the register epilogue leave its 16-bit tile by TMA (load=tma with a
-- producer warpgroup, an output stored along its rows with no residual
-- but res_pp's and no gated split, a warpgroup's columns whole 64-column
-- panels)?  The tile is then BNL / 64 panels of BM rows of 128 bytes,
-- 128-byte swizzled as the operand tiles are (res_pp's channel-first
-- output: BM / 64 panels of BNL columns of 64 rows, rows_tmap), and one
-- thread stores each panel with cp.async.bulk.tensor (launch()'s tensor
-- map after the operands'): no copy-out loop, and the TMA unit clips the
-- edges.  The design decides all but the panels:
-- the code takes the store where GEMM_TST (the panels) holds, and launch()
-- passes the map where the config meets both (tma_store with its cfg).
local function tma_store(P, design, cfg)
  if not tma_ld(design) or (design.sched ~= "ws" and design.sched ~= "pp") then return false end
  if not reg_epi(P, design) or (P.res and not res_pp(P, design)) or P.epi == "gated" then return false end
  -- (a channel-first output: res_pp's alone, in panels of 64 rows by the
  -- tile's columns, one warpgroup across them)
  if out_mfast(P) then
    return res_pp(P, design) and (not cfg or cfg.BM % 64 == 0 and cfg.WN == 1 and cfg.BN <= 256)
  end
  if not tma_map(P.out) then return false end
  return not cfg or ((P.glu and cfg.BN // 2 or cfg.BN) // cfg.WN) % 64 == 0
end

-- load=tmares: the residual's tile goes through the stage ring as BN / 64
-- more K tiles of the ws producer: after a tile's last K tile it copies
-- each 64 columns of the residual (BM rows, unswizzled, the residual's
-- contiguous axis first: BM x 64 values, an A stage's size) into the A
-- part of the next ring slot by TMA, as soon as the consumers free it.
-- The copy-out reads the residual there instead of waiting on DRAM at the
-- end of the tile, when every block of a wave asks for its residual at
-- once, and the stages need no more shared memory (the epilogue's 16-bit
-- tile lies over the B parts).  Returns the tensor map (its box from cfg,
-- where given) and the box's coordinates as C expressions of m0, n0, z
-- and the chunk rc; nil where the residual has no such map.  Rows (b, t)
-- with t contiguous take one box within a batch entry (the constraints
-- ask T % BM == 0 there); gated's residual covers the columns below C,
-- and a box past them reads zeros.
local function res_tmap(spec, P, cfg)
  local mp = P.res
  if not mp or P.epi == "gate" or P.glu or mp.arg.dtype ~= P.dt or #mp.cd ~= 1 or #mp.zd > 1 then
    return nil
  end
  local es = P.dt == "f32" and 4 or 2
  local t = { arg = arg_index(spec, mp.arg), dtype = P.dt, off = mp.off * es, swizzle = 0, dims = {}, strides = {}, box = {} }
  local c = {}
  -- (the first axis contiguous, the others' strides positive multiples of
  -- 16 bytes, as a tensor map needs)
  local function axis(n, st, b, e)
    if #t.dims > 0 then
      if st <= 0 or st * es % 16 ~= 0 then return false end
      t.strides[#t.strides + 1] = st * es
    elseif st ~= 1 then
      return false
    end
    t.dims[#t.dims + 1], t.box[#t.box + 1], c[#c + 1] = n, b, e
    return true
  end
  local bm, nc = cfg and cfg.BM or 0, "(int)(n0 + 64 * rc)"
  local C, R, ok = mp.cd[1], mp.rd[#mp.rd], false
  if out_mfast(P) then
    if #mp.rd == 2 then
      ok = axis(R[1], R[2], bm, "(int)(m0 % " .. lit(R[1]) .. ")") and axis(C[1], C[2], 64, nc) and
        axis(mp.rd[1][1], mp.rd[1][2], 1, "(int)(m0 / " .. lit(R[1]) .. ")")
    elseif #mp.rd == 1 then
      ok = axis(R[1], R[2], bm, "(int)m0") and axis(C[1], C[2], 64, nc)
    end
  elseif #mp.rd == 1 then
    ok = axis(C[1], C[2], 64, nc) and axis(R[1], R[2], bm, "(int)m0")
  end
  if ok and #mp.zd == 1 then ok = axis(mp.zd[1][1], mp.zd[1][2], 1, "(int)z") end
  if not ok or #t.dims > 4 or mp.off * es % 16 ~= 0 then return nil end
  return t, c
end

-- does the kernel of this design take its residual by TMA (load=tmares
-- where it applies; elsewhere the design point is tma's code, whose
-- configs the constraints refuse)?
local function res_tma(spec, P, design)
  return design.load == "tmares" and design.sched == "ws" and reg_epi(P, design) and
    (tma_a(P, design) or tma_m(P, design)) and res_tmap(spec, P) ~= nil
end

-- blocks along M and N: gemm_glu's tile of BN columns covers BN / 2 outputs
local function tiles_mn(P, cfg)
  local bnl = P.glu and cfg.BN // 2 or cfg.BN
  local tm, tn = kg.cdiv(P.M, cfg.BM), kg.cdiv(P.N, bnl)
  return tm * tn, tm, tn
end

-- shared memory of the simt path: the A and B tiles as float, padded
local function simt_smem(cfg)
  return 4 * cfg.BK * (cfg.BM + 1 + cfg.BN + 1)
end

-- shared memory of the mma path: STAGES A and B tiles, rows padded by 16
-- bytes (f32 for the tf32 split, else 16-bit)
local function mma_smem(P, cfg)
  local v = P.vec
  local asz = a_trans(P, cfg) and cfg.BK * (cfg.BM + 8) or cfg.BM * (cfg.BK + v)
  return cfg.STAGES * (asz + cfg.BN * (cfg.BK + v)) * (16 // v)
end

-- shared memory of the wgmma path: the stages, or the f32 tile of the
-- staged epilogue if larger (no alignment slack: ptxas pads the static
-- shared memory before it to the dynamic tile's 1024-byte alignment, so
-- the dynamic tile starts aligned; the kernel traps if it does not)
local function wgmma_smem(P, cfg)
  local asz = (a_ss(P, cfg) or a_desc(P, cfg)) and cfg.BM * cfg.BK or
    a_trans(P, cfg) and cfg.BK * (cfg.BM + 8) or cfg.BM * (cfg.BK + 8)
  -- gated's filter half lands beside the gate half, the conv's raw rows
  asz = asz + a_fst(P, cfg)
  local stages = cfg.STAGES * (asz + cfg.BN * cfg.BK) * 2
  -- (load=panel: the ring holds A alone; B's panel is all of K)
  if cfg.load == "panel" then stages = (cfg.STAGES * asz + kg.cdiv(P.K, cfg.BK) * cfg.BN * cfg.BK) * 2 end
  -- (the register epilogue's 16-bit tile of BM x (BN + 8), gemm_glu's of
  -- BN / 2 + 8 columns, a channel-first output's of BN x (BM + 8); by TMA,
  -- BM x BN or BN / 2 unpadded)
  local rt = reg_epi(P, cfg) and (tma_store(P, cfg, cfg) and 2 * cfg.BM * (P.glu and cfg.BN // 2 or cfg.BN) or
    out_mfast(P) and 2 * cfg.BN * (cfg.BM + 8) or 2 * cfg.BM * ((P.glu and cfg.BN // 2 or cfg.BN) + 8))
  if cfg.sched == "pp" then
    -- each consumer's own tile beside the stages (staged: f32, 64 rows)
    return stages + 2 * (rt or 4 * (out_mfast(P) and cfg.BN * 68 or 64 * (cfg.BN + 4)))
  end
  local ct = rt or 4 * (out_mfast(P) and cfg.BN * (cfg.BM + 4) or cfg.BM * (cfg.BN + 4))
  return math.max(stages, ct)
end

-- sched=pp with the register epilogue, not load=panel: the static shared
-- memory of the consumers' column vectors, a tile ahead (gemm_cvs)
local function pp_cv_smem(P, cfg)
  if cfg.sched ~= "pp" or cfg.load == "panel" or not reg_epi(P, cfg) then return 0 end
  local nv = (bias_acc(P, cfg) and P.bias and 1 or 0) + (P.glu and P.bias and 1 or 0) + (P.cscale and 1 or 0)
  return 2 * nv * 4 * (P.glu and cfg.BN // 2 or cfg.BN)
end

-- shared memory of the mma path as launched: the stages, or under split-K
-- the f32 partial sums of a tile (BM x BN) if larger
local function mma_launch_smem(P, cfg)
  local smem = mma_smem(P, cfg)
  if cfg.SPLITK > 1 then smem = math.max(smem, 4 * cfg.BM * cfg.BN) end
  return smem
end

-- the interface --------------------------------------------------------------

function T.supports(spec)
  local P = analyze(spec)
  if P.err then return false, P.err end
  return true
end

-- a tile of t along a dimension of d is pointless when half of it covers d
local function fits(t, d, smallest)
  return t == smallest or t < 2 * d
end

-- shared memory of the LayerNorm state: prepass mean/rstd and partial
-- sums; fold's row and column sums (mma; simt keeps them in registers)
local function ln_extra(P, cfg, nt)
  -- (ws: mean and rstd, and each stage's 64 gamma and beta, ws_ln_gb)
  if cfg.ln == "prepass" and cfg.sched == "ws" then return 8 * cfg.BM + 256 * cfg.STAGES end
  if cfg.ln == "prepass" then return 4 * (2 * cfg.BM + math.max(nt, cfg.BM)) end
  -- (pp: each consumer's rstd and rstd * mean of its tile's rows)
  if cfg.ln == "fold" and cfg.sched == "pp" then return 4 * (4 * cfg.BM + 2 * cfg.BN) end
  if cfg.ln == "fold" and cfg.path ~= "simt" then return 4 * (2 * cfg.BM + 2 * cfg.BN) end
  return 0
end

-- sched=ws: the registers a consumer thread gets.  With two or more
-- consumer warpgroups the block is compiled for the whole register file
-- (at most 65536 / threads each) and setmaxnreg hands what the producer
-- leaves (ws_preg: 40, or 56 and 64 with a prologue to run) to the
-- consumers; with one, MINB caps them as on the sync schedule.  The
-- preprocessor's GEMM_CREG (emit_wgmma) is the same sum (WM, WN are knobs).
local function ws_preg(P, cfg)
  if not a_desc(P, cfg) or P.A.kind == "strided" or P.A.kind == "convt" then return 40 end
  if P.A.kind == "conv" then return 56 end
  return P.A.kind == "ln" and 64 or 56   -- LayerNorm: gamma, beta of 8 columns
end

local function ws_regs(P, cfg)
  local nc = cfg.sched == "pp" and 2 or cfg.WM * cfg.WN
  if nc == 1 then return math.min(255, 65536 // (256 * cfg.MINB)) end
  local pr = ws_preg(P, cfg)
  local r = 65536 // (128 * (nc + 1)) // 8 * 8
  return math.min(256, (r + (r - pr) // nc) // 8 * 8)
end

local function threads(cfg)
  if cfg.path == "mma" then return 32 * cfg.WM * cfg.WN end
  if cfg.path == "wgmma" then
    if cfg.sched == "pp" then return 384 end
    return 128 * (cfg.WM * cfg.WN + (cfg.sched == "ws" and 1 or 0))
  end
  return (cfg.BM // cfg.TM) * (cfg.BN // cfg.TN)
end

-- The scanners skip every config that agrees with a rejection on the knobs
-- it read (templates.md), and the tuning knobs go BK, BM, BN, MINB, SPLITK,
-- STAGES, TM, TN, WM, WN: so the design is judged first, then each path's
-- checks in that order, and the thread count (WM, WN; TM, TN) is read last.
function T.constraints(spec, cfg)
  local P = analyze(spec)
  if P.err then return false, P.err end
  if P.ln then
    if cfg.ln == "none" then return false, "ln_gemm_gelu needs ln=prepass or ln=fold" end
  elseif cfg.ln ~= "none" then
    return false, "ln applies to ln_gemm_gelu only"
  end
  if cfg.prologue == "smem" and (P.A.kind == "strided" or P.A.kind == "convt" or not a_desc(P, cfg)) then
    return false, "prologue=smem: wgmma with a prologue whose raw A lands by cp.async"
  end
  if a_desc(P, cfg) and P.A.kind == "conv" and P.A.Tout % cfg.BM ~= 0 then
    return false, "the conv's panels: a row tile within one batch entry (T % BM == 0)"
  end
  if cfg.sched == "pp" then
    if cfg.path ~= "wgmma" then return false, "sched=pp is a wgmma schedule" end
    if cfg.ln == "prepass" then return false, "sched=pp: LayerNorm by fold only" end
    if cfg.ln == "fold" and cfg.load ~= "panel" then
      return false, "sched=pp: ln=fold scales B's panel once (load=panel)"
    end
    if cfg.ln == "fold" and not reg_epi(P, cfg) then
      return false, "sched=pp: ln=fold on the register epilogue (outputs in aligned runs of 8)"
    end
    if not (a_ss(P, cfg) or a_desc(P, cfg)) then
      return false, "sched=pp: A must reach wgmma through a descriptor"
    end
  end
  if cfg.sched == "ws" then
    if cfg.path ~= "wgmma" then return false, "sched=ws is a wgmma schedule" end
    if cfg.ln == "fold" then return false, "sched=ws: LayerNorm by prepass only" end
    if cfg.ln == "prepass" and a_desc(P, cfg) ~= "k" then
      return false, "sched=ws: LayerNorm of an x contiguous along K only"
    end
    if not (a_ss(P, cfg) or a_desc(P, cfg)) then
      return false, "sched=ws: A must reach wgmma through a descriptor"
    end
  end
  if cfg.load == "cp4" then
    if cfg.path ~= "mma" or P.dt ~= "f32" or not cp4_ok(P, cfg) then
      return false, "load=cp4: mma's f32 A read along M by cp.async"
    end
  elseif cfg.load ~= "cp" then
    if cfg.sched ~= "ws" and cfg.sched ~= "pp" then
      return false, "load=tma/mcast: the copies of a ws or pp producer"
    end
    if P.A.kind == "ksplit" then
      if not ksplit_tma(P, cfg) then
        return false, "conv_cond_gate by TMA: load=tma, x channel-last, the condition's rows along T"
      end
    elseif not tma_map(P.B.mp) then return false, "load=tma/mcast: B's rows one axis, K contiguous" end
    if conv_tma(P, cfg) then
      local g = conv_geom(P)
      if conv_w(g, cfg.BM) > 256 or g.nch > 256 then
        return false, "load=tma: the conv's raw rows in one box (at most 256 values a side)"
      end
    end
    if cfg.load == "tmares" and cfg.sched == "pp" then
      if not (tma_a(P, cfg) or tma_m(P, cfg)) then return false, "load=tmares: A by TMA (no prologue)" end
      if not res_pp(P, cfg) then
        return false, "load=tmares (pp): one residual with the output's tensor map, on the register epilogue"
      end
      if not tma_store(P, cfg, cfg) then
        return false, "load=tmares (pp): the tile in whole panels of the TMA store"
      end
      if out_mfast(P) and #P.res.rd == 2 and P.res.rd[2][1] % cfg.BM ~= 0 then
        return false, "load=tmares: a row tile within one batch entry (T % BM == 0)"
      end
    elseif cfg.load == "tmares" then
      if cfg.sched ~= "ws" then return false, "load=tmares: the residual copied by a ws or pp producer" end
      if not (tma_a(P, cfg) or tma_m(P, cfg)) then return false, "load=tmares: A by TMA (no prologue)" end
      if not reg_epi(P, cfg) or not res_tmap(spec, P) then
        return false, "load=tmares: a residual with a tensor map, on the register epilogue"
      end
      if out_mfast(P) and #P.res.rd == 2 and P.res.rd[2][1] % cfg.BM ~= 0 then
        return false, "load=tmares: a row tile within one batch entry (T % BM == 0)"
      end
      -- (the residual's BN / 64 chunks in as many ring slots at once, and
      -- the epilogue's 16-bit tile within the B parts of the stages)
      if cfg.BN % 64 ~= 0 or cfg.BN // 64 > cfg.STAGES then
        return false, "load=tmares: the residual's 64-column chunks in the ring at once (BN / 64 <= STAGES)"
      end
      if (out_mfast(P) and cfg.BN * (cfg.BM + 8) or cfg.BM * (cfg.BN + 8)) > cfg.STAGES * cfg.BN * cfg.BK then
        return false, "load=tmares: the epilogue's tile within the stages' B parts"
      end
    end
    if cfg.load == "panel" then
      if cfg.sched ~= "pp" then return false, "load=panel: a persistent block's column tile (sched=pp)" end
      if not (tma_a(P, cfg) or tma_m(P, cfg)) then return false, "load=panel: A by TMA (no prologue)" end
      if #P.B.mp.zd > 0 and P.B.mp.zd[1][2] ~= 0 then return false, "load=panel: one B for every batch entry" end
      if select(3, tiles_mn(P, cfg)) > (spec.limits.units or 80) // 2 then
        return false, "load=panel: at least two blocks a column tile"
      end
    end
    if cfg.load == "mcast" then
      if not tma_a(P, cfg) then return false, "load=mcast: A by TMA too (no prologue)" end
      -- (ws: the epilogue's tile lies over the stages, which the peer may
      -- refill for a next batch entry)
      if cfg.sched == "ws" and P.Z > 65535 then return false, "load=mcast: one batch entry a block" end
    end
  end
  if cfg.path == "mma" then
    if spec.backend ~= "cuda" then return false, "mma is CUDA only" end
    if kg.sm(spec) < 80 then return false, "mma.sync needs sm_80" end
  elseif cfg.path == "wgmma" then
    if spec.backend ~= "cuda" then return false, "wgmma is CUDA only" end
    if kg.sm(spec) ~= 90 then return false, "wgmma is sm_90's" end
    if P.dt ~= "f16" and P.dt ~= "bf16" then return false, "tensor cores need f16 or bf16" end
    if cfg.ln == "fold" and not a_ss(P, cfg) then
      return false, "wgmma folds LayerNorm only into an A contiguous along K"
    end
    if P.B.kind == "ksplit" then
      if not (ksplit_tma(P, cfg) and fast(spec, P, P.B.lo, cfg) and fast(spec, P, P.B.hi, cfg)) then
        return false, "wgmma: conv_cond_gate's split operands by TMA only (ksplit_tma)"
      end
    elseif not fast(spec, P, P.B, cfg) then
      return false, "wgmma reads B by cp.async: contiguous and 16-byte aligned along K"
    end
  end
  local BM, BN, BK = cfg.BM, cfg.BN, cfg.BK
  local ncols = P.glu and 2 * P.N or P.N
  if cfg.path == "mma" then
    local mk = P.dt == "f32" and 8 or 16      -- m16n8k8 tf32, m16n8k16 f16/bf16
    if BK < mk then return false, "BK below the mma k" end
    if not fits(BK, P.K, mk) then return false, "BK larger than K needs" end
    if not fits(BM, P.M, 16) then return false, "BM larger than M needs" end
    if not fits(BN, ncols, 16) then return false, "BN larger than N needs" end
    if cfg.LNC ~= 1 then return false, "LNC is a sched=ws knob" end
    if cfg.MINB ~= 1 then return false, "MINB is a wgmma knob" end
    local kts = kg.cdiv(kg.cdiv(P.K, BK), cfg.SPLITK)   -- K tiles per block
    if cfg.SPLITK > 1 then
      -- split-K reduces through the distributed shared memory of a cluster
      if kg.sm(spec) < 90 then return false, "split-K needs sm_90's clusters" end
      if cfg.ln ~= "none" then return false, "split-K does not split LayerNorm's row sums" end
      if kts < 2 then return false, "split-K leaves a block fewer than 2 K tiles" end
      if tiles_mn(P, cfg) * P.Z * cfg.SPLITK > 4 * (spec.limits.units or 80) then
        return false, "split-K where the tiles alone fill the SMs"
      end
    end
    if cfg.STAGES < 2 then return false, "mma pipelines at least 2 stages" end
    -- (a fifth stage was measured on wgmma's pp GEMMs only, performance.md
    -- attempt 37; mma's rank() would put it first unmeasured)
    if cfg.STAGES > 4 then return false, "mma pipelines at most 4 stages" end
    if cfg.STAGES > 2 and cfg.STAGES > kts + 1 then
      return false, "more stages than K tiles to fill them"
    end
    if cfg.TM ~= 1 or cfg.TN ~= 1 then return false, "TM, TN are simt knobs" end
    local nt = threads(cfg)
    if nt > spec.limits.threads then return false, "more threads than the device allows" end
    if BM % (16 * cfg.WM) ~= 0 then return false, "warp tile rows not a multiple of 16" end
    if BN % (16 * cfg.WN) ~= 0 then return false, "warp tile columns not a multiple of 16" end
    local acc = (BM // cfg.WM // 16) * (BN // cfg.WN // 8) * 4
    if acc > 128 then return false, "more than 128 accumulators per thread" end
    local smem = mma_launch_smem(P, cfg) + ln_extra(P, cfg, nt)
    if smem > spec.limits.smem then return false, "shared memory over the limit" end
  elseif cfg.path == "wgmma" then
    if BK ~= 64 then return false, "the 128-byte swizzle takes BK = 64" end
    if cfg.load ~= "cp" and P.glu and (BN // cfg.WN) % 16 ~= 0 then
      return false, "load=tma: gemm_glu's half groups in whole swizzle atoms (8 rows)"
    end
    if not fits(BM, P.M, 64) then return false, "BM larger than M needs" end
    if not fits(BN, ncols, 64) then return false, "BN larger than N needs" end
    if cfg.LNC > 1 then
      -- the blocks of a cluster take adjacent column tiles of one row tile
      if cfg.sched ~= "ws" or cfg.ln ~= "prepass" then
        return false, "LNC shares sched=ws's LayerNorm statistics"
      end
      if kg.cdiv(P.N, P.glu and BN // 2 or BN) % cfg.LNC ~= 0 then
        return false, "LNC does not divide the column tiles"
      end
    end
    if cfg.SPLITK ~= 1 then return false, "SPLITK is an mma knob" end
    if cfg.STAGES < 3 then return false, "wgmma pipelines at least 3 stages" end
    -- (sched=pp: the ring runs on into the next tile)
    if cfg.sched ~= "pp" and cfg.STAGES > kg.cdiv(P.K, BK) + 2 then
      return false, "more stages than K tiles to fill them"
    end
    if cfg.TM ~= 1 or cfg.TN ~= 1 then return false, "TM, TN are simt knobs" end
    if cfg.sched == "ws" and cfg.WM * cfg.WN > 1 and cfg.MINB ~= 1 then
      return false, "sched=ws with setmaxnreg: one block per SM"
    end
    if cfg.sched == "pp" then
      if cfg.MINB ~= 1 then return false, "sched=pp: one persistent block per SM" end
      if cfg.WM ~= 1 or cfg.WN ~= 1 then return false, "sched=pp: a consumer warpgroup per tile" end
      if BM > 128 then return false, "sched=pp: BM of 64 or 128" end
    end
    local nt = threads(cfg)
    if nt > spec.limits.threads then return false, "more threads than the device allows" end
    if BM % (64 * cfg.WM) ~= 0 then return false, "warpgroup tile rows not a multiple of 64" end
    local wtn = BN // cfg.WN
    if BN % cfg.WN ~= 0 or (wtn ~= 64 and wtn ~= 128 and wtn ~= 256) then
      return false, "warpgroup tile columns not 64, 128 or 256"
    end
    local acc = (BM // cfg.WM // 64) * (wtn // 2)
    if acc > 128 then return false, "more than 128 accumulators per thread" end
    -- about 96 registers go to addresses, A fragments and the epilogue
    -- (ws: no A fragments, no loads)
    if cfg.sched ~= "sync" then
      if acc + 64 > ws_regs(P, cfg) then return false, "too few registers per consumer thread" end
    elseif acc + 96 > math.min(255, 65536 // nt) then
      return false, "too few registers per thread"
    end
    -- (with the static mbarriers, which ptxas pads to the dynamic tile's
    -- 1024-byte alignment: a config at the limit failed its launch; and
    -- pp's static column vectors)
    local smem = wgmma_smem(P, cfg) + ln_extra(P, cfg, nt) + pp_cv_smem(P, cfg)
    if smem + 1024 > spec.limits.smem then return false, "shared memory over the limit" end
    if cfg.MINB == 2 then
      -- two blocks per SM: the registers capped at half the file each
      -- (about 64 beside the accumulators), and the shared memory of both
      -- (each with the 1 KiB the driver reserves) within the SM's 228 KiB
      if cfg.sched ~= "ws" and acc + 64 > 65536 // (2 * nt) then
        return false, "two blocks per SM leave too few registers"
      end
      if 2 * (smem + 1024) > 233472 then return false, "two blocks per SM need too much shared memory" end
    end
  else
    if not fits(BK, P.K, 8) then return false, "BK larger than K needs" end
    if not fits(BM, P.M, 16) then return false, "BM larger than M needs" end
    if not fits(BN, ncols, 16) then return false, "BN larger than N needs" end
    if cfg.LNC ~= 1 then return false, "LNC is a sched=ws knob" end
    if cfg.MINB ~= 1 then return false, "MINB is a wgmma knob" end
    if cfg.SPLITK ~= 1 then return false, "SPLITK is an mma knob" end
    if cfg.STAGES ~= 1 then return false, "simt is single-stage" end
    if BM % cfg.TM ~= 0 or BN % cfg.TN ~= 0 then return false, "TM/TN do not divide the tile" end
    if P.glu and cfg.TN % 2 ~= 0 then return false, "gemm_glu pairs columns: TN even" end
    local nt = threads(cfg)
    if nt > spec.limits.threads then return false, "more threads than the device allows" end
    if nt < 32 then return false, "fewer than 32 threads" end
    if nt > 256 then return false, "simt blocks stay within 256 threads (registers)" end
    if cfg.WM ~= 1 or cfg.WN ~= 1 then return false, "WM, WN are mma knobs" end
    local smem = simt_smem(cfg) + ln_extra(P, cfg, nt)
    local cap = spec.limits.smem
    if spec.backend == "cuda" then cap = math.min(cap, 49152) end
    if smem > cap then return false, "shared memory over the limit" end
  end
  return true
end

-- A rough relative time of a config, for the order in which the tuner
-- samples a design point first (it never skips one).  The busiest SM gets
-- ceil(tiles / units) blocks and holds bps of them at a time (shared
-- memory, threads, estimated registers); each block does BM x BN x K at an
-- efficiency set by the warps resident on the SM (8 keep the tensor cores
-- or the FMA pipes busy), the reuse of a warp's (simt: a thread's) tile,
-- the work per K step against its barrier, the stages in flight, and the
-- loads per thread of an A operand staged through registers.
function T.rank(spec, cfg)
  local P = analyze(spec)
  if P.err then return math.huge end
  local units = spec.limits.units or 80
  local split = cfg.path == "mma" and cfg.SPLITK or 1
  local tiles = tiles_mn(P, cfg) * P.Z * split
  local nt = threads(cfg)
  local pp = cfg.path == "wgmma" and cfg.sched == "pp"
  local ws = cfg.path == "wgmma" and cfg.sched == "ws" or pp
  local smem, tm, tn, regs, reuse
  if cfg.path == "simt" then
    smem = simt_smem(cfg)
    tm, tn, reuse = cfg.TM, cfg.TN, 2
    regs = 2 * tm * tn + 2 * (tm + tn) + 32
  else
    smem = cfg.path == "mma" and mma_launch_smem(P, cfg) or wgmma_smem(P, cfg)
    tm, tn = cfg.BM // cfg.WM, cfg.BN // cfg.WN
    local lanes = cfg.path == "mma" and 32 or 128
    local frag = cfg.path == "mma" and (tm // 16 * 4 + tn // 8 * 2) or tm // 64 * 4
    if P.dt == "f32" then frag = 2 * frag end
    regs = tm * tn // lanes + frag + 48
    -- wgmma: ptxas takes about 96 beside the accumulators unless MINB caps it
    if cfg.path == "wgmma" then regs = tm * tn // lanes + 96 end
    reuse = cfg.path == "mma" and 8 or 16
  end
  smem = smem + ln_extra(P, cfg, nt)
  local spill = regs > 255 and 4 or 1
  regs = math.min(regs, 255)
  if cfg.MINB == 2 then regs = math.min(regs, 65536 // (2 * nt)) end
  -- sched=ws with setmaxnreg: one block takes the whole register file and
  -- moves the producer's share to the consumers (ws_regs)
  if ws and (pp or cfg.WM * cfg.WN > 1) then
    regs = 65536 // nt
  end
  local bps = math.min((spec.limits.smem + 1024) // (smem + 1024), 2048 // nt,
    65536 // (nt * regs), 32)
  if bps < 1 then return math.huge end
  local per = kg.cdiv(tiles, units)
  -- (sched=pp: one block holds two tiles at a time)
  local conc = math.min(pp and 2 or bps, per)
  local rounds = kg.cdiv(per, conc)
  -- (sched=ws: the producer warpgroup issues no MMAs, and keeps every
  -- stage's loads behind them)
  local ew = math.min(1, conc * (ws and nt - 128 or nt) / 32 / (cfg.path == "simt" and 16 or 8))
  -- wgmma (fitted to 180 configs of six GEMMs measured on the H100,
  -- 2026-11-25, docs/performance.md attempt 11): at K up to 1024, where
  -- the epilogue weighs, the tensor cores want 4 consumer warpgroups on an
  -- SM (else 2, and 2 when a producer feeds them), and one producer
  -- starves 4 consumers; a warpgroup's tile tm x tn reads
  -- 32 (tm + tn) bytes of shared memory per 16 tm tn MACs, which caps it
  -- below 64 x 64 (et)
  if cfg.path == "wgmma" then
    ew = math.min(1, conc * cfg.WM * cfg.WN / ((ws or P.K > 1024) and 2 or 4))
    if ws and cfg.WM * cfg.WN >= 4 then ew = ew / 2 end
  end
  local i = tm * tn / (tm + tn)
  -- (wgmma with a pass over each landed A tile, the conv's shifts or a
  -- prologue: the pass's shared-memory traffic competes with the MMAs',
  -- and each m64nN instruction reads its A and B anew, so the intensity
  -- is the instruction's: the dilated conv ran 4 to 9% faster at WM = 2,
  -- m64n256, than at WN = 2, where without a pass WN = 2 was 5 to 10%
  -- faster; docs/performance.md attempt 16, H200)
  local xpass = a_desc(P, cfg) and P.A.kind ~= "strided" and P.A.kind ~= "convt"
  if cfg.path == "wgmma" and xpass then i = 64 * tn / (64 + tn) end
  local et = i / (i + (cfg.path == "wgmma" and 32 or reuse))
  local ek = cfg.BK / (cfg.BK + 8)
  -- loads in flight behind the MMAs (sched=ws/pp: a fourth stage was 5 to
  -- 10% faster than a third on the GELU GEMMs and the plain linear of
  -- docs/performance.md attempt 15, H200)
  local es = ws and 1 - 0.75 / (cfg.STAGES * cfg.STAGES) or 1 - 0.5 / cfg.STAGES
  -- an A staged through registers (a prologue, a transposed or strided
  -- read) costs each thread BM * BK / threads loads per K step
  local ea = 1
  if cfg.path ~= "simt" and not fast(spec, P, operand(P, "A", cfg), cfg) and
      not a_desc(P, cfg) and not a_ss(P, cfg) then
    -- (load=cp4: the copies run STAGES - 1 K tiles ahead, but each value
    -- still costs its thread about 20 instructions of index arithmetic and
    -- its cp.async: a third of the register path's weight, a guess)
    ea = 1 / (1 + cfg.BM * cfg.BK / ((cfg.path == "wgmma" and 32 or cfg.load == "cp4" and 24 or 8) * nt))
  end
  -- a_desc's pass over each landed A tile (a prologue, the conv's shifts):
  -- about 64 columns' worth of MMA time per row, whatever BN
  local pass = 0
  if xpass then pass = 64 end
  -- (pp's ln=fold: each A row's sums from the landed stage beside its
  -- MMAs, a pass's quarter, a guess)
  if pp and cfg.ln == "fold" then pass = 16 end
  -- split-K: a slice of K per block, and the cluster's reduction (about
  -- 16 K steps' worth of time per extra block)
  local kpad = kg.cdiv(kg.cdiv(P.K, cfg.BK), split) * cfg.BK + 16 * (split - 1)
  -- sched=ws's LayerNorm: each block reads its BM / LNC rows over all of
  -- K before the first MMA (about a fifth of the MMA time of a 256-column
  -- tile on the H200), and a cluster costs its barriers and co-scheduling
  -- (measured at K = 4096, 2026-11-22: LNC 2 < 4 < 8 < 1)
  local stats = 0
  if ws and cfg.ln == "prepass" then stats = 48 * P.K / cfg.LNC + 6 * P.K * (cfg.LNC - 1) end
  -- the epilogue: each output's trip through the tile, its math and
  -- store (and a residual's load), worth about 128 to 256 K steps of one
  -- MAC; a second block on the SM runs its K loop meanwhile (measured on
  -- the H100, 2026-11-25: at K = 256 to 512, two 128 x 128 blocks an SM
  -- beat one 128 x 256 by up to 23%)
  -- (load=tmares: the residual waits in shared memory.  Under pp on the
  -- H200, LYNXNet2's residual linear ran 0.1618-0.1638 ms by it at STAGES =
  -- 5 against 0.1737-0.1743 by tma at 4, ConvNeXt's channel-first one level
  -- with tma, 0.1699 against 0.1703: performance.md attempt 40)
  local ek2 = 128 + (P.res and (cfg.load == "tmares" and 24 or 64) or 0) +
    ((P.epi == "gelu" or P.epi == "gated" or P.glu) and 64 or 0)
  -- (sched=pp: one consumer's epilogue runs beside the other's MMAs)
  local epi = cfg.BN * ek2 * (conc < 2 and 1 or pp and 0.25 or 0.5)
  -- (load=tma: one thread's copies in place of 128 threads' cp.async, and
  -- no L1 on the way: 5 to 11% faster on four of six GEMMs of LYNXNet2 and
  -- ConvNeXt on the H200, docs/performance.md attempt 14)
  -- (load=panel: B crosses L2 once a block, not once a tile. On the H200
  -- it beat tma by 14 to 19% at K = 256, where the panel is 64 KB at
  -- BN = 128, and lost by 25% at K = 512, where it leaves the A ring too
  -- little shared memory: docs/performance.md attempts 19 and 20)
  local panel = P.K * cfg.BN * 2 <= 65536 and 0.88 or 1.1   -- (16-bit: wgmma)
  local tma = (cfg.load == "tma" or cfg.load == "tmares") and 0.93 or cfg.load == "panel" and panel or 1
  return tma * spill * rounds * conc * cfg.BM * ((cfg.BN + pass) * kpad / (ew * et * ek * es * ea) + stats + epi)
end

function T.launch(spec, cfg)
  local P = analyze(spec)
  local tiles, tm_, tn_ = tiles_mn(P, cfg)
  local smem = 0
  if cfg.path == "mma" then
    smem = mma_launch_smem(P, cfg)
    tiles = tiles * cfg.SPLITK
  elseif cfg.path == "wgmma" then
    smem = wgmma_smem(P, cfg)
  end
  -- load=tma: A's tensor map (where A goes by TMA), then B's, the conv's raw
  -- rows' (conv_tma), the output's (tma_store) and the residual's (tmares)
  -- (mcast: B's tile in two halves, one a block; the grid in pairs of
  -- blocks over pairs of row tiles)
  local tm
  local mc = cfg.load == "mcast"
  if P.A.kind == "ksplit" and tma_ld(cfg) then
    -- (conv_cond_gate: A's and B's maps of the dilated conv, then of the
    -- condition's conv, kg_tmA, kg_tmB, kg_tmA2, kg_tmB2)
    local rows = cfg.BN // cfg.WN // 2
    tm = { tmap_m(spec, with_A(P, P.A.lo)), tmap_of(spec, P, P.B.lo.mp, rows, true),
           tmap_m(spec, with_A(P, P.A.hi)), tmap_of(spec, P, P.B.hi.mp, rows, true) }
  elseif tma_ld(cfg) or mc then
    tm = {}
    if tma_a(P, cfg) then
      tm[1] = P.A.kind == "convt" and tmap_m(spec, P) or tmap_of(spec, P, operand(P, "A", cfg).mp, cfg.BM)
    end
    if tma_m(P, cfg) then tm[1] = tmap_m(spec, P) end
    tm[#tm + 1] = tmap_of(spec, P, P.B.mp,
      P.glu and cfg.BN // cfg.WN // 2 or mc and cfg.BN // 2 or cfg.BN, P.glu)
    if conv_tma(P, cfg) then tm[#tm + 1] = conv_tmap(spec, P, cfg) end
    -- (a channel-first output's and res_pp's residual: rows_tmap's panels)
    local bnl = P.glu and cfg.BN // 2 or cfg.BN
    local function panels(mp) return out_mfast(P) and rows_tmap(spec, P, mp, bnl) or tmap_of(spec, P, mp, cfg.BM) end
    if tma_store(P, cfg, cfg) then tm[#tm + 1] = panels(P.out) end
    if cfg.load == "tmares" then
      tm[#tm + 1] = cfg.sched == "pp" and panels(P.res) or (res_tmap(spec, P, cfg))
    end
  end
  if mc then tiles = 2 * kg.cdiv(tm_, 2) * tn_ end
  if cfg.path == "wgmma" and cfg.sched == "pp" then
    -- persistent: a block an SM (or fewer where the tiles are fewer)
    local units = spec.limits.units or 80
    if mc then units = units // 2 * 2 end
    -- (load=panel: a whole number of blocks a column tile, each keeping
    -- its column tile's B)
    if cfg.load == "panel" then units = units // tn_ * tn_ end
    return { grid = { math.min(tiles * P.Z, units), 1, 1 },
             block = { threads(cfg), 1, 1 }, smem = smem, tmaps = tm }
  end
  return { grid = { tiles, 1, math.min(P.Z, 65535) },
           block = { threads(cfg), 1, 1 }, smem = smem, tmaps = tm }
end

-- code generation --------------------------------------------------------------

-- a conv's channel and tap of k (C expressions): k = ci * KS + tap, or
-- tap * Cig + ci where the weight is stored tap-major (convt)
local function conv_k(o, k)
  if o.kind == "convt" then
    return string.format("((%s) %% %d)", k, o.Cig), string.format("((%s) / %d)", k, o.Cig)
  end
  return string.format("((%s) / %d)", k, o.KS), string.format("((%s) %% %d)", k, o.KS)
end

-- the float value of operand o at (z, r, k) -- r is valid, k may be >= K;
-- ri is the row's index in the tile (for per-row state in shared memory)
local function value(spec, P, o, z, r, k, ri)
  local K = lit(P.K)
  if o.kind == "ksplit" then
    -- (k below K1 from the first operand, the rest from the second)
    return string.format("((%s) < %s ? %s : (%s) < %s ? %s : 0.0f)", k, lit(o.K1),
      value(spec, P, o.lo, z, r, k, ri), k, K,
      value(spec, P, o.hi, z, r, "(" .. k .. " - " .. lit(o.K1) .. ")", ri))
  elseif o.kind == "strided" then
    return "((" .. k .. ") < " .. K .. " ? " ..
      kg.load(spec, o.mp.arg.dtype, o.mp.arg.cname, addr(o.mp, z, r, k)) .. " : 0.0f)"
  elseif o.kind == "conv" or o.kind == "convt" then
    local ci, tap = conv_k(o, k)
    local tin = string.format("((%s) %% %s * %d - %d + %s * %d)",
      r, lit(o.Tout), o.stride, o.pad, tap, o.dil)
    local terms = {}
    if o.off ~= 0 then terms[1] = lit(o.off) end
    terms[#terms + 1] = string.format("(%s) / %s * %s", r, lit(o.Tout), lit(o.sxB))
    terms[#terms + 1] = string.format("((%s) * %d + %s) * %s", z, o.Cig, ci, lit(o.sxC))
    terms[#terms + 1] = tin .. " * " .. lit(o.sxT)
    return string.format("((%s) < %s && %s >= 0L && %s < %s ? %s : 0.0f)", k, K, tin, tin,
      lit(o.Tin), kg.load(spec, o.x.dtype, o.x.cname, table.concat(terms, " + ")))
  elseif o.kind == "gated" then
    local g = kg.load(spec, o.gate.arg.dtype, o.gate.arg.cname, addr(o.gate, z, r, k))
    local f = kg.load(spec, o.filt.arg.dtype, o.filt.arg.cname, addr(o.filt, z, r, k))
    return "((" .. k .. ") < " .. K .. " ? " .. kg.unary(spec, "sigmoid", g) .. " * " ..
      kg.unary(spec, "tanh", f) .. " : 0.0f)"
  elseif o.kind == "ln" then
    local x = kg.load(spec, o.mp.arg.dtype, o.mp.arg.cname, addr(o.mp, z, r, k))
    local g = kg.load(spec, P.ln.gamma.arg.dtype, P.ln.gamma.arg.cname, addr(P.ln.gamma, z, "0", k))
    local b = kg.load(spec, P.ln.beta.arg.dtype, P.ln.beta.arg.cname, addr(P.ln.beta, z, "0", k))
    return string.format("((%s) < %s ? (%s - gemm_mean[%s]) * gemm_rstd[%s] * %s + %s : 0.0f)",
      k, K, x, ri, ri, g, b)
  end
  kg.fail("operand kind %s", tostring(o.kind))
end

-- C code: the global row r and its validity ok for tile row `ri`
local function rowcode(P, which, design)
  if which == "A" then
    return "const long r = m0 + ri; const int ok = r < GEMM_M;"
  end
  if not P.glu then
    return "const long r = n0 + ri; const int ok = r < GEMM_N;"
  end
  return "const long c = n0 + ri / GEMM_GLU_G * (GEMM_GLU_G / 2) + ri % GEMM_GLU_G % (GEMM_GLU_G / 2);\n" ..
    "          const long r = c + (ri % GEMM_GLU_G >= GEMM_GLU_G / 2 ? GEMM_N : 0L);\n" ..
    "          const int ok = c < GEMM_N;"
end

-- C code filling the shared tile of operand `which` (A: BM rows, B: BN rows)
-- for k0 with `store(ri, ki, v)` (register path) or cp.async into `dst`
local function loader(spec, P, which, design, store, dst)
  local o = operand(P, which, design)
  local R = which == "A" and "BM" or "BN"
  if fast(spec, P, o, design) then
    return kg.line() .. "\n" .. fill([[
      #pragma unroll
      for (int i = 0; i < GEMM_CDIV($R * BK / $v, GEMM_NT); i++) {
        const int e = tid + i * GEMM_NT;
        if (($R * BK / $v) % GEMM_NT == 0 || e < $R * BK / $v) {
          const int ri = e / (BK / $v), ki = e % (BK / $v) * $v;
          $row
          const long k = k0 + ki;
          const int in = ok && k < GEMM_K;
          kg_gemm_cp16($dst + ri * GEMM_BKP + ki, in ? $ptr + ($addr) : $ptr, in);
        }
      }
]], { R = R, row = rowcode(P, which, design), dst = dst, ptr = o.mp.arg.cname,
      addr = addr(o.mp, "z", "r", "k"), v = P.vec })
  end
  local map = o.kfast and "const int ri = e / BK, ki = e % BK;" or
    "const int ri = e % $R, ki = e / $R;"
  return kg.line() .. "\n" .. fill([[
      #pragma unroll
      for (int i = 0; i < GEMM_CDIV($R * BK, GEMM_NT); i++) {
        const int e = tid + i * GEMM_NT;
        if (($R * BK) % GEMM_NT == 0 || e < $R * BK) {
          ]] .. map .. [[

          $row
          const long k = k0 + ki;
          float v = 0.0f;
          if (ok) v = $value;
          $store
        }
      }
]], { R = R, row = rowcode(P, which, design), value = value(spec, P, o, "z", "r", "k", "ri"),
      store = store("ri", "ki", "v") })
end

-- the f16x2/bf16x2 unit gated_tanh_residual's prologue runs on (bf16x2
-- tanh needs sm_90), or nil
local function gated_h2(spec, dt)
  return dt == "f16" and "f16x2" or dt == "bf16" and kg.sm(spec) >= 90 and "bf16x2" or nil
end

-- C statements declaring uint4 `z` as gated's prologue of the 8 gate and
-- 8 filter values in uint4 lvalues g and f, in pairs on the half-precision
-- units: sigmoid(g) tanh(f) = h + h tanh(g / 2) with h = tanh(f) / 2, one
-- MUFU op per element instead of three (exp, reciprocal, tanh), the error
-- of a few ulp of the f16/bf16 value the tile stores anyway
local function gated_pairs(spec, dt, g, f, z)
  return fill([[
            const unsigned *gw = (const unsigned *)&$g, *fw = (const unsigned *)&$f;
            uint4 $z;
            unsigned *zw = (unsigned *)&$z;
            #pragma unroll
            for (int j = 0; j < 4; j++) {
              unsigned hg, tg, tf, hf;
              asm("fma.rn.$h2 %0, %1, %2, %3;" : "=r"(hg) : "r"(gw[j]), "r"($half), "r"(0x80008000u));
              asm("tanh.approx.$h2 %0, %1;" : "=r"(tg) : "r"(hg));
              asm("tanh.approx.$h2 %0, %1;" : "=r"(tf) : "r"(fw[j]));
              asm("fma.rn.$h2 %0, %1, %2, %3;" : "=r"(hf) : "r"(tf), "r"($half), "r"(0x80008000u));
              asm("fma.rn.$h2 %0, %1, %2, %1;" : "=r"(zw[j]) : "r"(hf), "r"(tg));
            }
]], { g = g, f = f, z = z, h2 = gated_h2(spec, dt),
      half = dt == "f16" and "0x38003800u" or "0x3F003F00u" })
end

-- C code filling the transposed A tile (a_trans), in two halves so global
-- latency hides behind the tensor cores: `fetch` (before the stage's MMAs)
-- loads tile k0 into registers, `put` (after them) stores it into row ki of
-- the tile.  Each thread takes 8 consecutive rows at one k: one 16-byte
-- load when the rows are contiguous and aligned (mvec), else 8 coalesced
-- scalar loads; the store is one 16-byte vector.
local function loader_trans(spec, P, dst, cp4)
  local o, dt, G = P.A, P.dt, P.vec
  local L = I32 and tostring or lit
  local ct = kg.ctype(spec, dt)
  local decl, fetch, put
  -- `pre`, then `each` (a statement setting pk[j]) for the G values, then
  -- one 16-byte store into the tile
  local function pack(pre, each)
    return fill([[
$pre
          __align__(16) $ct pk[$G];
          #pragma unroll
          for (int j = 0; j < $G; j++) $each
          *(uint4 *)($dst + ki * GEMM_BMP + rg) = *(const uint4 *)pk;]],
      { pre = pre, each = each, ct = ct, dst = dst, G = G })
  end
  -- the scalar fetches fill gemm_av; their put converts and packs it
  decl = "float gemm_av[GEMM_TAI][" .. G .. "];"
  put = pack("", kg.store(spec, dt, "pk", "j", "gemm_av[i][j]"))
  -- the conv's view at stride 1: G rows from one division, then G
  -- consecutive taps; where G does not divide the sequence, a group may run
  -- past its end into the next batch's first rows (the wrap variant).
  -- each(inside, off) is row j's statement, given whether its value lies
  -- in x (else it is the padding's zero) and its offset there.
  local function conv_rows(each)
    local wrap = o.Tout % G ~= 0
    local v = { Tout = L(o.Tout), KS = L(o.KS), off = L(o.off), sxB = L(o.sxB), Cig = L(o.Cig),
                sxC = L(o.sxC), pad = L(o.pad), dil = L(o.dil), G = G, Tin = L(o.Tin),
                sxT = L(o.sxT), ix = I32 and "int" or "long" }
    v.ci, v.tap = conv_k(o, "(" .. v.ix .. ")k")
    v.tin = fill(wrap and "const bool nx = ct0 + j >= $Tout;\n            " ..
      "const $ix tin = ctb + j - (nx ? $Tout : 0);" or "const $ix tin = ctb + j;", v)
    v.each = each(fill((wrap and "r0 + j" or "r0") .. " < GEMM_M && k < GEMM_K && tin >= 0 && tin < $Tin", v),
      fill(wrap and "cbase + (nx ? $sxB : 0) + tin * $sxT" or "cbase + tin * $sxT", v))
    return fill([[
          const $ix cb = ($ix)r0 / $Tout, ct0 = ($ix)r0 % $Tout, cci = $ci, ckk = $tap;
          const $ix cbase = $off + cb * $sxB + (($ix)z * $Cig + cci) * $sxC;
          const $ix ctb = ct0 - $pad + ckk * $dil;
          #pragma unroll
          for (int j = 0; j < $G; j++) {
            $tin
            $each
          }]], v)
  end
  -- cp4 (mma, f32): an f32 A whose rows are not 16-byte runs lands a value
  -- at a time by cp.async (4 bytes, zero-filled outside x), in the stage
  -- ring with B, STAGES - 1 K tiles ahead of the MMAs: the register path
  -- below keeps its loads one K tile ahead, too little to hide them at
  -- small M (the f32 convs at B = 1, T = 861).  Nothing is fetched before
  -- the MMAs; `put` issues the copies.
  local cv = o.kind == "conv" or o.kind == "convt"
  if cp4 and cv and o.stride == 1 and o.Tout >= G and o.x.dtype == "f32" then
    decl = ""
    put = conv_rows(function(inside, off)
      return "const bool ok = " .. inside .. ";\n            kg_gemm_cp4(" .. dst ..
        " + ki * GEMM_BMP + rg + j, " .. o.x.cname .. " + (ok ? " .. off .. " : 0), ok);"
    end)
  elseif cp4 and o.kind == "strided" and o.mp.arg.dtype == "f32" and mvec(o.mp, G) then
    -- (rows in 16-byte runs: a group of G at a time)
    decl = ""
    put = fill([[
          const bool ok = r0 < GEMM_M && k < GEMM_K;
          kg_gemm_cp16($dst + ki * GEMM_BMP + rg, $x + (ok ? $addr : 0), ok);]],
      { dst = dst, x = o.mp.arg.cname, addr = addr(o.mp, "z", "r0", "k") })
  elseif cp4 and o.kind == "strided" and o.mp.arg.dtype == "f32" then
    decl = ""
    put = fill([[
          #pragma unroll
          for (int j = 0; j < $G; j++) {
            const long r = r0 + j;
            const bool ok = r < GEMM_M && k < GEMM_K;
            kg_gemm_cp4($dst + ki * GEMM_BMP + rg + j, $x + (ok ? $addr : 0), ok);
          }]], { G = G, dst = dst, x = o.mp.arg.cname, addr = addr(o.mp, "z", "r", "k") })
  elseif o.kind == "strided" and mvec(o.mp, G) then
    decl = "uint4 gemm_ar[GEMM_TAI];"
    fetch = fill([[
          gemm_ar[i] = make_uint4(0u, 0u, 0u, 0u);
          if (r0 < GEMM_M && k < GEMM_K) gemm_ar[i] = *(const uint4 *)($ptr + ($addr));]],
      { ptr = o.mp.arg.cname, addr = addr(o.mp, "z", "r0", "k") })
    if o.mp.arg.dtype == dt then
      put = "          *(uint4 *)(" .. dst .. " + ki * GEMM_BMP + rg) = gemm_ar[i];"
    else
      local at = kg.ctype(spec, o.mp.arg.dtype)
      put = pack("          const " .. at .. " *rh = (const " .. at .. " *)&gemm_ar[i];",
        kg.store(spec, dt, "pk", "j", kg.load(spec, o.mp.arg.dtype, "rh", "j")))
    end
  elseif o.kind == "gated" and mvec(o.gate, G) and mvec(o.filt, G) then
    decl = "uint4 gemm_ag[GEMM_TAI], gemm_af[GEMM_TAI];"
    fetch = fill([[
          gemm_ag[i] = gemm_af[i] = make_uint4(0u, 0u, 0u, 0u);
          if (r0 < GEMM_M && k < GEMM_K) {
            gemm_ag[i] = *(const uint4 *)($gp + ($ga));
            gemm_af[i] = *(const uint4 *)($fp + ($fa));
          }]], { gp = o.gate.arg.cname, ga = addr(o.gate, "z", "r0", "k"),
                 fp = o.filt.arg.cname, fa = addr(o.filt, "z", "r0", "k") })
    if gated_h2(spec, dt) and o.gate.arg.dtype == dt and o.filt.arg.dtype == dt then
      -- in pairs, on the half-precision units: sigmoid(g) tanh(f) =
      -- h + h tanh(g / 2) with h = tanh(f) / 2; one MUFU op per element
      -- instead of three (exp, reciprocal, tanh), the error of a few ulp
      -- of the f16/bf16 value the tile stores anyway
      put = "          {\n" .. gated_pairs(spec, dt, "gemm_ag[i]", "gemm_af[i]", "zq") ..
        "            *(uint4 *)(" .. dst .. " + ki * GEMM_BMP + rg) = zq;\n          }"
    else
      put = pack(fill([[
          const $gt *gh = (const $gt *)&gemm_ag[i];
          const $ft *fh = (const $ft *)&gemm_af[i];]],
          { gt = kg.ctype(spec, o.gate.arg.dtype), ft = kg.ctype(spec, o.filt.arg.dtype) }),
        fill([[{
            /* the hardware's exp and tanh: their error (about 2^-11) is that
               of the f16/bf16 rounding the value gets next */
            const float gv = $gl, fv = $fl;
            float th;
            asm("tanh.approx.f32 %0, %1;" : "=f"(th) : "f"(fv));
            const float v = (r0 < GEMM_M && k < GEMM_K) ?
              __fdividef(1.0f, 1.0f + __expf(-gv)) * th : 0.0f;
            $store
          }]], { gl = kg.load(spec, o.gate.arg.dtype, "gh", "j"),
                 fl = kg.load(spec, o.filt.arg.dtype, "fh", "j"),
                 store = kg.store(spec, dt, "pk", "j", "v") }))
    end
  elseif cv and o.stride == 1 and o.Tout >= G then
    fetch = conv_rows(function(inside, off)
      return "gemm_av[i][j] = " .. inside .. " ?\n              " ..
        kg.load(spec, o.x.dtype, o.x.cname, off) .. " : 0.0f;"
    end)
  else
    fetch = fill([[
          #pragma unroll
          for (int j = 0; j < $G; j++) {
            const long r = r0 + j;
            gemm_av[i][j] = r < GEMM_M ? $value : 0.0f;
          }]], { value = value(spec, P, o, "z", "r", "k", "rg + j"), G = G })
  end
  local loop = [[
      #pragma unroll
      for (int i = 0; i < GEMM_TAI; i++) {
        const int e = tid + i * GEMM_NT;
        if ((BK * (BM / $G)) % GEMM_NT == 0 || e < BK * (BM / $G)) {
          const int ki = e / (BM / $G), rg = e % (BM / $G) * $G;
          const long r0 = m0 + rg, k = k0 + ki;
          (void)r0; (void)k;
$body
        }
      }
]]
  return "      " .. decl .. "\n",
    fetch and kg.line() .. "\n" .. fill(loop, { body = fetch, G = G }) or "",
    kg.line() .. "\n" .. fill(loop, { body = put, G = G })
end

-- C code of the LayerNorm prepass: gemm_mean[BM], gemm_rstd[BM] of rows m0..
local function ln_prepass(spec, P)
  local x = P.A.raw
  local rawx = value(spec, P, x, "z", "r", "k", "ri")
  local pmap = x.kfast and "const int ri = e / GEMM_LNP, p = e % GEMM_LNP;" or
    "const int ri = e % BM, p = e / BM;"
  local pidx = x.kfast and "ri * GEMM_LNP + p" or "p * BM + ri"
  local function pass(acc, fin)
    return fill([[
    #pragma unroll
    for (int i = 0; i < GEMM_CDIV(BM * GEMM_LNP, GEMM_NT); i++) {
      const int e = tid + i * GEMM_NT;
      if (e < BM * GEMM_LNP) {
        ]] .. pmap .. [[

        const long r = m0 + ri;
        float s = 0.0f;
        if (r < GEMM_M)
          for (long k = p; k < GEMM_K; k += GEMM_LNP) { const float xv = $raw; $acc }
        gemm_red[e] = s;
      }
    }
    KG_BARRIER();
    #pragma unroll
    for (int i = 0; i < GEMM_CDIV(BM, GEMM_NT); i++) {
      const int ri = tid + i * GEMM_NT;
      if (ri < BM) {
        float s = 0.0f;
        for (int p = 0; p < GEMM_LNP; p++) s += gemm_red[$pidx];
        $fin
      }
    }
    KG_BARRIER();
]], { raw = rawx, acc = acc, fin = fin, pidx = pidx })
  end
  local rs = spec.backend == "cuda" and "rsqrtf" or "rsqrt"
  return kg.line() .. pass("s += xv;", "gemm_mean[ri] = s / (float)GEMM_K;") ..
    pass("const float d = xv - gemm_mean[ri]; s += d * d;",
      "gemm_rstd[ri] = " .. rs .. "(s / (float)GEMM_K + " .. kg.float(P.ln.eps) .. ");")
end

-- CUDA code of the LayerNorm statistics of rows m0.. (x contiguous along
-- K), by the nt threads numbered tid (a multiple of 32): one warp per row,
-- its lanes along k (16 bytes each where x allows, coalesced scalars
-- otherwise), four rows at a time so that four loads are in flight (rows
-- past M or BM read row M - 1 or BM - 1 and are not stored); one pass of
-- the sums of x - x[r, 0] and of their squares, shifted by the row's
-- first value so that the variance keeps its digits when the mean is
-- large against the spread (two passes would read the row twice)
local function ln_stats_warp(spec, P, design, tid, nt, part)
  local x = P.A.raw
  local ct = kg.ctype(spec, P.dt)
  local vec = fast(nil, P, x, design) and x.mp.arg.dtype == P.dt
  local loop
  if vec then
    loop = fill([[
          #pragma unroll 2
          for (long k = (long)lane * $V; k < GEMM_K; k += 32L * $V) {
            uint4 q[4];
            #pragma unroll
            for (int j = 0; j < 4; j++) q[j] = *(const uint4 *)(xr[j] + k);
            #pragma unroll
            for (int j = 0; j < 4; j++) {
              const $ct *h = (const $ct *)&q[j];
              #pragma unroll
              for (int u = 0; u < $V; u++) { const float v = $h - sh[j]; s1[j] += v; s2[j] += v * v; }
            }
          }]], { V = tostring(P.vec), ct = ct, h = kg.load(spec, P.dt, "h", "u") })
  else
    loop = fill([[
          #pragma unroll 2
          for (long k = lane; k < GEMM_K; k += 32) {
            float q[4];
            #pragma unroll
            for (int j = 0; j < 4; j++) q[j] = $x;
            #pragma unroll
            for (int j = 0; j < 4; j++) { const float v = q[j] - sh[j]; s1[j] += v; s2[j] += v * v; }
          }]], { x = kg.load(spec, x.mp.arg.dtype, "xr[j]", "k") })
  end
  return kg.line() .. "\n" .. fill([[
      {
        const int lane = ($tid) & 31, nw = ($nt) / 32;
        for (int rb = $rb0; rb < $r1; rb += 4 * nw) {
          const $xt *xr[4];
          float s1[4], s2[4], sh[4];
          #pragma unroll
          for (int j = 0; j < 4; j++) {
            const int ri = rb + j * nw < $r1 ? rb + j * nw : $r1 - 1;
            const long r = m0 + ri < GEMM_M ? m0 + ri : GEMM_M - 1;
            xr[j] = $ptr + ($addr);
            s1[j] = 0.0f; s2[j] = 0.0f;
          }
          #pragma unroll
          for (int j = 0; j < 4; j++) sh[j] = $x0;
$loop
          #pragma unroll
          for (int j = 0; j < 4; j++) {
            #pragma unroll
            for (int o = 16; o > 0; o >>= 1) {
              s1[j] += __shfl_xor_sync(0xffffffffu, s1[j], o);
              s2[j] += __shfl_xor_sync(0xffffffffu, s2[j], o);
            }
            const int ri = rb + j * nw;
            if (lane == 0 && ri < $r1) {
              const float d = s1[j] / (float)GEMM_K;
              gemm_mean[ri] = sh[j] + d;
              gemm_rstd[ri] = rsqrtf(fmaxf(s2[j] / (float)GEMM_K - d * d, 0.0f) + $eps);
            }
          }
        }
      }
]], { tid = tid, nt = nt, xt = kg.ctype(spec, x.mp.arg.dtype), ptr = x.mp.arg.cname,
  rb0 = part and "GEMM_LNR0 + ((" .. tid .. ") >> 5)" or "(" .. tid .. ") >> 5",
  r1 = part and "GEMM_LNR1" or "BM",
      addr = addr(x.mp, "z", "r", "0"), x0 = kg.load(spec, x.mp.arg.dtype, "xr[j]", "0"),
      loop = loop, eps = kg.float(P.ln.eps) })
end

-- C code of one element (k, wv) of a B column in a fold pass: w scaled by
-- gamma (rounded to the storage type, as the tile stores it, so the sums
-- match what the MMAs see), stored back by `stb`, and the column's sums of
-- w*gamma and beta*w
local function fold_col(spec, P, wv, stb)
  local g = kg.load(spec, P.ln.gamma.arg.dtype, P.ln.gamma.arg.cname, addr(P.ln.gamma, "z", "0", "k"))
  local b = kg.load(spec, P.ln.beta.arg.dtype, P.ln.beta.arg.cname, addr(P.ln.beta, "z", "0", "k"))
  return fill([[
            if (k < GEMM_K) {
              const float wv = $wv;
              const float wg = $round;
              $stb
              cw += wg;
              cb += $beta * wv;
            }]], { wv = wv, round = (P.dt == "bf16" and "kg_round_bf16(" or
                     P.dt == "f16" and "kg_round_f16(" or "(") .. "wv * " .. g .. ")",
                   stb = stb, beta = b })
end

-- C code of the fold pass over the tiles in shared memory: row sums and sums
-- of squares of A, column sums of w*gamma and beta*w, B scaled by gamma.
-- ld(which, ri, ki) reads a tile element as float, st(ri, ki, v) writes B.
local function fold_pass(spec, P, ld, st)
  return kg.line() .. "\n" .. fill([[
        for (int e = tid; e < BM; e += GEMM_NT) {
          float s = 0.0f, q = 0.0f;
          for (int kk = 0; kk < BK; kk++) { const float xv = $lda; s += xv; q += xv * xv; }
          gemm_rs[e] += s;
          gemm_rq[e] += q;
        }
        for (int j = tid; j < BN; j += GEMM_NT) {
          float cw = 0.0f, cb = 0.0f;
          for (int kk = 0; kk < BK; kk++) {
            const long k = k0 + kk;
$col
          }
          gemm_cw[j] += cw;
          gemm_cb[j] += cb;
        }
        KG_BARRIER();
]], { lda = ld("A", "e", "kk"), col = fold_col(spec, P, ld("B", "j", "kk"), st("j", "kk", "wg")) })
end

-- C code folding 16-byte chunk c of row j of a swizzled B tile at bt (row
-- j's chunk c at chunk c ^ (j % 8)), its first value at k = k0c: the 8
-- values scaled by gamma in place, their sums added to cw and cb
local function fold_chunk_swz(spec, P, bt, j, k0c)
  local ct = kg.ctype(spec, P.dt)
  return fill([[
              uint4 *p = (uint4 *)($bt + $j * 64 + ((c ^ ($j & 7)) << 3));
              uint4 raw = *p;
              $ct *h = ($ct *)&raw;
              #pragma unroll
              for (int u = 0; u < 8; u++) {
                const long k = $k0c + u;
$col
              }
              *p = raw;]], { bt = bt, j = j, k0c = k0c, ct = ct,
    col = fold_col(spec, P, kg.load(spec, P.dt, "h", "u"), kg.store(spec, P.dt, "h", "u", "wg")) })
end

-- the fold pass over a stage of wgmma's swizzled tiles (row r's 16-byte
-- chunk c at chunk c ^ (r % 8)): rows and columns at once, one thread
-- each, read and written 16 bytes at a time (a quarter-warp's 8 rows hit
-- 8 distinct chunks, so no bank conflicts)
local function fold_pass_swz(spec, P)
  local dt = P.dt
  local ct = kg.ctype(spec, dt)
  return kg.line() .. "\n" .. fill([[
        for (int e = tid; e < BM + BN; e += GEMM_NT) {
          if (e < BM) {
            float s = 0.0f, q = 0.0f;
            #pragma unroll
            for (int c = 0; c < 8; c++) {
              const uint4 raw = *(const uint4 *)(as_f + e * 64 + ((c ^ (e & 7)) << 3));
              const $ct *h = (const $ct *)&raw;
              #pragma unroll
              for (int u = 0; u < 8; u++) { const float xv = $lda; s += xv; q += xv * xv; }
            }
            gemm_rs[e] += s;
            gemm_rq[e] += q;
          } else {
            const int j = e - BM;
            float cw = 0.0f, cb = 0.0f;
            #pragma unroll
            for (int c = 0; c < 8; c++) {
$chunk
            }
            gemm_cw[j] += cw;
            gemm_cb[j] += cb;
          }
        }
        KG_BARRIER();
]], { ct = ct, lda = kg.load(spec, dt, "h", "u"), chunk = fold_chunk_swz(spec, P, "bs_f", "j", "k0 + c * 8") })
end

-- the bias term of output column n (w: which of the staged epilogue's
-- per-thread copies, io.col, holds it)
local function epi_bias(spec, P, io, n, w)
  if not P.bias then return "" end
  if io and io.col then return " + " .. io.col(w or "b") end
  return " + " .. colload(spec, P, P.bias, n)
end

-- the activation's argument x times conv_gelu's scale, if any
local function pre_scale(P, x)
  if not P.pscale then return x end
  return "(" .. x .. ") * " .. kg.float(P.pscale)
end

-- C statements of the epilogue for output (m, n) with accumulator variable
-- `v` (and gate accumulator `g` for gemm_glu); m < M and n < N hold.
-- io, when given, replaces the global accesses: io.st(mp, x) stores x for
-- output map mp, io.ld(mp) loads the residual (the vectorised epilogue
-- gathers them in registers)
local function epilogue(spec, P, io)
  local function st(mp, m, n, x)
    if io then return io.st(mp, x) end
    return kg.store(spec, mp.arg.dtype, mp.arg.cname, addr(mp, "z", m, n), x)
  end
  local function bias(n, w) return epi_bias(spec, P, io, n, w) end
  if P.epi == "plain" then
    return "const float o = v" .. bias("n") .. ";\n            " .. st(P.out, "m", "n", "o")
  elseif P.epi == "gelu" then
    return "const float h = " .. pre_scale(P, "v" .. bias("n")) .. ";\n            " ..
      st(P.out, "m", "n", kg.unary(spec, "gelu", "h", { approximate = P.approximate }))
  elseif P.epi == "glu" then
    return "const float hv = v" .. bias("n") .. ", hg = g" .. bias("(n + " .. lit(P.N) .. ")", "g") ..
      ";\n            " .. st(P.out, "m", "n", "hv * " .. kg.unary(spec, P.act, "hg"))
  elseif P.epi == "gate" then
    local function res(n)
      if not P.res then return "0.0f" end
      return kg.load(spec, P.res.arg.dtype, P.res.arg.cname, addr(P.res, "z", "m", n))
    end
    local N = "(n + " .. lit(P.N) .. ")"
    return "const float hv = v" .. bias("n") .. " + " .. res("n") .. ", hg = g" .. bias(N, "g") ..
      " + " .. res(N) .. ";\n            " ..
      st(P.out, "m", "n", kg.unary(spec, "sigmoid", "hv", {}) .. " * " .. kg.unary(spec, "tanh", "hg", {}))
  elseif P.epi == "add" then
    local x = io and io.ld(P.res) or
      kg.load(spec, P.res.arg.dtype, P.res.arg.cname, addr(P.res, "z", "m", "n"))
    local o = "v" .. bias("n")
    if P.cscale then
      o = "(" .. o .. ") * " .. (io and io.col and io.col("s") or
        kg.load(spec, P.cscale.arg.dtype, P.cscale.arg.cname, addr(P.cscale, "z", "0", "n")))
    end
    return "const float o = " .. o .. ";\n            " .. st(P.out, "m", "n", x .. " + o")
  elseif P.epi == "gated" then
    local C = lit(P.C)
    local x = io and io.ld(P.res) or
      kg.load(spec, P.res.arg.dtype, P.res.arg.cname, addr(P.res, "z", "m", "n"))
    return "const float o = v" .. bias("n") .. ";\n            " ..
      "if (n < " .. C .. ") " .. st(P.out, "m", "n", "(" .. x .. " + o) * " .. kg.float(P.scale)) ..
      "\n            else " .. st(P.skip, "m", "(n - " .. C .. ")", "o")
  end
  kg.fail("epilogue %s", tostring(P.epi))
end

-- the staged epilogue's 8 values of a run with their activation a step of
-- all 8 at a time (kg.unary_n): the loop before it (per j, after v is set)
-- fills the arrays, the loop after it stores; nil where the epilogue has no
-- activation or it has no such form
local function epilogue_n(spec, P, io)
  local function bias(n, w) return epi_bias(spec, P, io, n, w) end
  local function st(x) return io.st(P.out, x) end
  if P.epi == "gelu" then
    local act = kg.unary_n(spec, "gelu", "hv", 8, { approximate = P.approximate })
    if not act then return nil end
    return { decl = "float hv[8];", pre = "hv[j] = " .. pre_scale(P, "v" .. bias("n")) .. ";", act = act,
             post = st("hv[j]") }
  elseif P.epi == "glu" then
    local act = kg.unary_n(spec, P.act, "hg", 8, {})
    if not act then return nil end
    return { decl = "float hv[8], hg[8];",
             pre = "hv[j] = v" .. bias("n") .. "; hg[j] = g" .. bias("(n + " .. lit(P.N) .. ")", "g") .. ";",
             act = act, post = st("hv[j] * hg[j]") }
  end
  return nil
end

-- the fold correction of accumulator v: rq, cw, cb are C expressions of
-- the row's sum of squares and the column's sums (mu, the row mean, is set)
local function fold_rstd(spec, P, rq)
  local rs = spec.backend == "cuda" and "rsqrtf" or "rsqrt"
  local fm = spec.backend == "cuda" and "fmaxf" or "fmax"
  return fill("$rs($fm($rq / (float)GEMM_K - mu * mu, 0.0f) + $eps)",
    { rs = rs, fm = fm, eps = kg.float(P.ln.eps), rq = rq })
end

local function fold_fix(spec, P, rq, cw, cb)
  return fill("v = $rstd * (v - mu * $cw) + $cb;", { rstd = fold_rstd(spec, P, rq), cw = cw, cb = cb })
end

-- macros and pieces both paths share
local function common(spec, P, design)
  local bnl = P.glu and "(BN / 2)" or "BN"
  return kg.line() .. "\n" .. fill([[
#define GEMM_M $M
#define GEMM_N $N
#define GEMM_K $K
#define GEMM_Z $Z
#define GEMM_CDIV(a, b) (((a) + (b) - 1) / (b))
#define GEMM_BNL $bnl
#define GEMM_TILES_M GEMM_CDIV(GEMM_M, (long)BM)
#define GEMM_TILES_N GEMM_CDIV(GEMM_N, (long)GEMM_BNL)
#define GEMM_LNP (GEMM_NT >= BM ? GEMM_NT / BM : 1)
]], { M = lit(P.M), N = lit(P.N), K = lit(P.K), Z = lit(P.Z), bnl = bnl })
end

-- the accumulators of both tensor-core paths, zeroed
local acc_zero = [[
    float acc[GEMM_MI][GEMM_NI][4];
    #pragma unroll
    for (int mi = 0; mi < GEMM_MI; mi++)
      #pragma unroll
      for (int ni = 0; ni < GEMM_NI; ni++)
        #pragma unroll
        for (int q = 0; q < 4; q++) acc[mi][ni][q] = 0.0f;]]

-- tile index -> m0, n0 (groups of 8 row tiles share column tiles in L2)
local tile_code = [[
  const long tile = KG_BID(0);
  const long grp = tile / (8L * GEMM_TILES_N), first = grp * 8L;
  const long gs = GEMM_TILES_M - first < 8L ? GEMM_TILES_M - first : 8L;
  const long m0 = (first + tile % (8L * GEMM_TILES_N) % gs) * BM;
  const long n0 = (tile % (8L * GEMM_TILES_N) / gs) * GEMM_BNL;
]]

-- sched=ws with LayerNorm: tile_code over clusters of LNC adjacent column
-- tiles of one row tile (LNC = 1: the same tiles)
local tile_lnc = [[
  const long tile = KG_BID(0) / LNC;
  const long grp = tile / (8L * GEMM_TILES_NL), first = grp * 8L;
  const long gs = GEMM_TILES_M - first < 8L ? GEMM_TILES_M - first : 8L;
  const long m0 = (first + tile % (8L * GEMM_TILES_NL) % gs) * BM;
  const long n0 = (tile % (8L * GEMM_TILES_NL) / gs * LNC + KG_BID(0) % LNC) * GEMM_BNL;
]]

-- load=mcast: the tile of rank GEMM_MCR of a pair of blocks taking row
-- tiles 2 i and 2 i + 1 of one column tile, pair tile $pt walking as
-- tile_code walks its tiles
local tile_mc = [[
  const long tile = $pt;
  const long grp = tile / (8L * GEMM_TILES_N), first = grp * 8L;
  const long gs = GEMM_TILES_MP - first < 8L ? GEMM_TILES_MP - first : 8L;
  const long m0 = ((first + tile % (8L * GEMM_TILES_N) % gs) * 2 + GEMM_MCR) * BM;
  const long n0 = (tile % (8L * GEMM_TILES_N) / gs) * GEMM_BNL;
]]

-- shared arrays of the LayerNorm variants (static)
local function ln_shared(design)
  if design.ln == "prepass" then
    return "  KG_SHARED float gemm_mean[BM], gemm_rstd[BM], gemm_red[BM * GEMM_LNP];\n"
  elseif design.ln == "fold" then
    return "  KG_SHARED float gemm_rs[BM], gemm_rq[BM], gemm_cw[BN], gemm_cb[BN];\n"
  end
  return ""
end

-- can the tensor-core paths take ln_stats_warp (x one contiguous run
-- along K)?
local function ln_warp(spec, P, design)
  local cd = P.A.raw.mp.cd
  return spec.backend == "cuda" and design.path ~= "simt" and #cd == 1 and cd[1][2] == 1
end

local function ln_start(spec, P, design)
  if design.ln == "prepass" then
    if ln_warp(spec, P, design) then
      return ln_stats_warp(spec, P, design, "tid", "GEMM_NT") .. "    KG_BARRIER();\n"
    end
    return ln_prepass(spec, P)
  end
  if design.ln == "fold" then
    return kg.line() .. "\n" .. [[
    for (int e = tid; e < BM; e += GEMM_NT) { gemm_rs[e] = 0.0f; gemm_rq[e] = 0.0f; }
    for (int j = tid; j < BN; j += GEMM_NT) { gemm_cw[j] = 0.0f; gemm_cb[j] = 0.0f; }
]]
  end
  return ""
end

-- the simt path -----------------------------------------------------------------

local function emit_simt(spec, P, design)
  local function sta(ri, ki, v) return "gemm_as[" .. ki .. " * GEMM_APITCH + " .. ri .. "] = " .. v .. ";" end
  local function stb(ri, ki, v) return "gemm_bs[" .. ki .. " * GEMM_BPITCH + " .. ri .. "] = " .. v .. ";" end
  -- ln=fold: every thread accumulates the sums of its own TM rows and TN
  -- columns in registers while it multiplies (no shared-memory pass), and
  -- scales its B values by gamma on the fly
  local fdecl, fupd = "", ""
  if design.ln == "fold" then
    local g = kg.load(spec, P.ln.gamma.arg.dtype, P.ln.gamma.arg.cname, addr(P.ln.gamma, "z", "0", "k"))
    local b = kg.load(spec, P.ln.beta.arg.dtype, P.ln.beta.arg.cname, addr(P.ln.beta, "z", "0", "k"))
    fdecl = kg.line() .. "\n" .. [[
    float rs[TM], rq[TM], cw[TN], cb[TN];
    #pragma unroll
    for (int i = 0; i < TM; i++) { rs[i] = 0.0f; rq[i] = 0.0f; }
    #pragma unroll
    for (int j = 0; j < TN; j++) { cw[j] = 0.0f; cb[j] = 0.0f; }
]]
    fupd = kg.line() .. "\n" .. fill([[
        {
          const long k = k0 + kk;
          const float gk = k < GEMM_K ? $g : 0.0f, bk = k < GEMM_K ? $b : 0.0f;
          #pragma unroll
          for (int i = 0; i < TM; i++) { rs[i] += a[i]; rq[i] += a[i] * a[i]; }
          #pragma unroll
          for (int j = 0; j < TN; j++) { cb[j] += bk * b[j]; b[j] *= gk; cw[j] += b[j]; }
        }
]], { g = g, b = b })
  end
  local epi
  local fix = design.ln == "fold" and fold_fix(spec, P, "rq[i]", "cw[j]", "cb[j]") or ""
  local mu = design.ln == "fold" and "const float mu = rs[i] / (float)GEMM_K;" or ""
  if P.glu then
    epi = kg.line() .. "\n" .. fill([[
    #pragma unroll
    for (int i = 0; i < TM; i++) {
      const int ri = ty + i * GEMM_TY;
      const long m = m0 + ri;
      if (m < GEMM_M) {
        #pragma unroll
        for (int j = 0; j < TN / 2; j++) {
          const int cj = tx + j * GEMM_TX;
          const long n = n0 + cj;
          if (n < GEMM_N) {
            const float v = acc[i][j], g = acc[i][j + TN / 2];
            $epi
          }
        }
      }
    }
]], { epi = epilogue(spec, P) })
  else
    epi = kg.line() .. "\n" .. fill([[
    #pragma unroll
    for (int i = 0; i < TM; i++) {
      const int ri = ty + i * GEMM_TY;
      const long m = m0 + ri;
      if (m < GEMM_M) {
        $mu
        #pragma unroll
        for (int j = 0; j < TN; j++) {
          const int cj = tx + j * GEMM_TX;
          const long n = n0 + cj;
          if (n < GEMM_N) {
            float v = acc[i][j];
            $fix
            $epi
          }
        }
      }
    }
]], { epi = epilogue(spec, P), fix = fix, mu = mu })
  end
  local src = {
    kg.prelude(spec),
    common(spec, P, design),
    kg.line() .. "\n" .. [[
#define GEMM_TX (BN / TN)
#define GEMM_TY (BM / TM)
#define GEMM_NT (GEMM_TX * GEMM_TY)
#define GEMM_GLU_G BN
#define GEMM_APITCH (BM + 1)
#define GEMM_BPITCH (BN + 1)
#if BM % TM != 0 || BN % TN != 0
#error "TM and TN must divide BM and BN"
#endif
]],
    kg.line() .. "\n" .. fill([[
KG_KERNEL void $bounds$name(
    $params)
{
  KG_GRID_DEP();
  KG_SHARED float gemm_as[BK * GEMM_APITCH];
  KG_SHARED float gemm_bs[BK * GEMM_BPITCH];
$lnsh
  const int tid = (int)KG_TID(0);
  const int tx = tid % GEMM_TX, ty = tid / GEMM_TX;
$tile
  for (long z = KG_BID(2); z < GEMM_Z; z += KG_GDIM(2)) {
    float acc[TM][TN];
    #pragma unroll
    for (int i = 0; i < TM; i++)
      #pragma unroll
      for (int j = 0; j < TN; j++) acc[i][j] = 0.0f;
$lnstart
    for (long k0 = 0; k0 < GEMM_K; k0 += BK) {
$loada
$loadb
      KG_BARRIER();
      #pragma unroll
      for (int kk = 0; kk < BK; kk++) {
        float a[TM], b[TN];
        #pragma unroll
        for (int i = 0; i < TM; i++) a[i] = gemm_as[kk * GEMM_APITCH + ty + i * GEMM_TY];
        #pragma unroll
        for (int j = 0; j < TN; j++) b[j] = gemm_bs[kk * GEMM_BPITCH + tx + j * GEMM_TX];
$fupd        #pragma unroll
        for (int i = 0; i < TM; i++)
          #pragma unroll
          for (int j = 0; j < TN; j++) acc[i][j] += a[i] * b[j];
      }
      KG_BARRIER();
    }
$epi
    KG_BARRIER();
  }
}
]], { name = spec.kernel, params = kg.params(spec), tile = tile_code,
      bounds = spec.backend == "cuda" and "__launch_bounds__(GEMM_NT) " or "",
      lnstats = lnstats,
      lnsh = design.ln == "prepass" and ln_shared(design) or "",
      lnstart = design.ln == "fold" and fdecl or ln_start(spec, P, design), fupd = fupd,
      loada = loader(spec, P, "A", design, sta), loadb = loader(spec, P, "B", design, stb),
      epi = epi }),
  }
  return table.concat(src, "\n")
end

-- the mma path ------------------------------------------------------------------

-- cp.async and ldmatrix (both tensor-core paths), and mma.sync (mma's)
local function mma_helpers(spec, P, design)
  local ab = P.dt == "bf16" and "bf16" or "f16"
  local mma = design.path == "mma" and P.dt == "f32" and kg.tf32_helpers("kg_gemm")
    or design.path == "mma" and fill([[
static __device__ __forceinline__ void kg_gemm_mma(float *c, const unsigned *a, const unsigned *b)
{
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.$ab.$ab.f32 {%0, %1, %2, %3}, "
               "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
               : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
]], { ab = ab }) or ""
  return kg.line() .. "\n" .. [[
static __device__ __forceinline__ void kg_gemm_cp16(void *s, const void *g, int ok)
{
  unsigned a = (unsigned)__cvta_generic_to_shared(s);
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" :: "r"(a), "l"(g), "r"(ok ? 16 : 0));
}
/* 4 bytes (an f32 A value, loader_trans's cp4), zero-filled unless ok */
static __device__ __forceinline__ void kg_gemm_cp4(void *s, const void *g, int ok)
{
  unsigned a = (unsigned)__cvta_generic_to_shared(s);
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" :: "r"(a), "l"(g), "r"(ok ? 4 : 0));
}
static __device__ __forceinline__ void kg_gemm_commit(void)
{
  asm volatile("cp.async.commit_group;\n" ::);
}
template <int N> static __device__ __forceinline__ void kg_gemm_wait(void)
{
  asm volatile("cp.async.wait_group %0;\n" :: "n"(N));
}
static __device__ __forceinline__ void kg_gemm_ldsm4(unsigned *r, const void *p)
{
  unsigned a = (unsigned)__cvta_generic_to_shared(p);
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(a));
}
static __device__ __forceinline__ void kg_gemm_ldsm4t(unsigned *r, const void *p)
{
  unsigned a = (unsigned)__cvta_generic_to_shared(p);
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(a));
}
]] .. mma
end

-- ldmatrix of the A fragment of rows GEMM_ROW(mi).. and columns ks.. of the
-- stage tile as_c into dst (the m16n8k16 A layout, also wgmma's register A)
local function afrag(atr, dst, f32)
  if atr and f32 then
    -- tf32 m16n8k8: (row g, k t), (g + 8, t), (g, t + 4), (g + 8, t + 4)
    -- with g = lane / 4, t = lane % 4, read as scalars from [BK][BM + 8]
    -- (a pitch of 8 mod 32 words: the 32 lanes hit 32 banks)
    return "{ const float *ap = as_c + (ks + (lane & 3)) * GEMM_BMP + GEMM_ROW(mi) + (lane >> 2);\n" ..
      "              " .. dst .. "[0] = __float_as_uint(ap[0]); " .. dst .. "[1] = __float_as_uint(ap[8]);\n" ..
      "              " .. dst .. "[2] = __float_as_uint(ap[4 * GEMM_BMP]); " ..
      dst .. "[3] = __float_as_uint(ap[4 * GEMM_BMP + 8]); }"
  end
  if atr then
    return "kg_gemm_ldsm4t(" .. dst .. ", as_c + (ks + (lane & 7) + ((lane >> 4) << 3)) * GEMM_BMP + " ..
      "GEMM_ROW(mi) + (((lane >> 3) & 1) << 3));"
  end
  return "kg_gemm_ldsm4(" .. dst .. ", as_c + (GEMM_ROW(mi) + (lane & 15)) * GEMM_BKP + " ..
    "ks + (lane >> 4) * (GEMM_MK / 2));"
end

-- the epilogue over the accumulators acc[mi][ni][4] of both tensor-core
-- paths: element q of n8 block ni of row block mi is row GEMM_ROW(mi) +
-- lane / 4 + 8 (q / 2), column wn * GEMM_WTN + ni * 8 + 2 (lane % 4) + q % 2
local function mma_epilogue(spec, P, design)
  local fix = design.ln == "fold" and fold_fix(spec, P, "gemm_rq[ri]", "gemm_cw[cj]", "gemm_cb[cj]") or ""
  local mu = design.ln == "fold" and "const float mu = gemm_rs[ri] / (float)GEMM_K;" or ""
  if P.glu then
    return kg.line() .. "\n" .. fill([[
    #pragma unroll
    for (int mi = 0; mi < GEMM_MI; mi++)
      #pragma unroll
      for (int h = 0; h < 2; h++) {
        const int ri = GEMM_ROW(mi) + (lane >> 2) + h * 8;
        const long m = m0 + ri;
        if (m < GEMM_M) {
          #pragma unroll
          for (int ni = 0; ni < GEMM_NI / 2; ni++)
            #pragma unroll
            for (int c = 0; c < 2; c++) {
              const long n = n0 + wn * (GEMM_WTN / 2) + ni * 8 + (lane & 3) * 2 + c;
              if (n < GEMM_N) {
                const float v = acc[mi][ni][h * 2 + c], g = acc[mi][ni + GEMM_NI / 2][h * 2 + c];
                $epi
              }
            }
        }
      }
]], { epi = epilogue(spec, P) })
  end
  return kg.line() .. "\n" .. fill([[
    #pragma unroll
    for (int mi = 0; mi < GEMM_MI; mi++)
      #pragma unroll
      for (int h = 0; h < 2; h++) {
        const int ri = GEMM_ROW(mi) + (lane >> 2) + h * 8;
        const long m = m0 + ri;
        if (m < GEMM_M) {
          $mu
          #pragma unroll
          for (int ni = 0; ni < GEMM_NI; ni++)
            #pragma unroll
            for (int c = 0; c < 2; c++) {
              const int cj = wn * GEMM_WTN + ni * 8 + (lane & 3) * 2 + c;
              const long n = n0 + cj;
              if (n < GEMM_N) {
                float v = acc[mi][ni][h * 2 + c];
                $fix
                $epi
              }
            }
        }
      }
]], { epi = epilogue(spec, P), fix = fix, mu = mu })
end

-- the MMAs of one k step over the fragments af, bf.  f32 runs each product
-- as three TF32 ones (3xTF32, kg.tf32_helpers): x = big + small with big =
-- x rounded to TF32, and a*b ~ a.small*b.big + a.big*b.small + a.big*b.big,
-- which keeps the error near f32's (one TF32 product alone would be near
-- 1e-3 relative).
local mma_16 = [[
          #pragma unroll
          for (int mi = 0; mi < GEMM_MI; mi++)
            #pragma unroll
            for (int ni = 0; ni < GEMM_NI; ni++) kg_gemm_mma(acc[mi][ni], af[mi], bf[ni]);]]
local mma_3xtf32 = [[
          unsigned as_[GEMM_MI][4], bs_[GEMM_NI][2];
          #pragma unroll
          for (int mi = 0; mi < GEMM_MI; mi++) kg_gemm_split<4>(af[mi], as_[mi]);
          #pragma unroll
          for (int ni = 0; ni < GEMM_NI; ni++) kg_gemm_split<2>(bf[ni], bs_[ni]);
          kg_gemm_mma3<GEMM_MI, GEMM_NI, GEMM_NI>(acc[0], af, as_, bf, bs_);]]

-- split-K over a thread-block cluster (sm_90): the SPLITK blocks of one
-- output tile are a cluster, each sums a slice of K; ranks 1.. leave their
-- accumulators in their own shared memory (the drained stage buffers, one
-- float4 per thread and fragment, conflict-free), and rank 0 adds them
-- through the cluster's distributed shared memory and alone runs the
-- epilogue.  The second barrier keeps every rank's shared memory alive
-- until rank 0 has read it.
local function split_helpers()
  return kg.line() .. "\n" .. [[
#if SPLITK > 1
#define GEMM_CLUSTER __cluster_dims__(SPLITK, 1, 1)
]] .. kg.cluster_helpers("kg_gemm") .. [[
/* sums the cluster's partial accumulators into rank 0's (red: this
   thread's slots in the drained stage buffers); true on rank 0 */
static __device__ __forceinline__ bool kg_gemm_split_reduce(float (*acc)[GEMM_NI][4], float4 *red,
                                                            unsigned kr)
{
  if (kr != 0) {
    #pragma unroll
    for (int mi = 0; mi < GEMM_MI; mi++)
      #pragma unroll
      for (int ni = 0; ni < GEMM_NI; ni++)
        red[(mi * GEMM_NI + ni) * GEMM_NT] =
          make_float4(acc[mi][ni][0], acc[mi][ni][1], acc[mi][ni][2], acc[mi][ni][3]);
  }
  kg_gemm_cluster_sync();
  if (kr == 0) {
    #pragma unroll 1
    for (unsigned r = 1; r < SPLITK; r++) {
      const unsigned pr = kg_gemm_peer(red, r);
      #pragma unroll
      for (int mi = 0; mi < GEMM_MI; mi++)
        #pragma unroll
        for (int ni = 0; ni < GEMM_NI; ni++) {
          const float4 v = kg_gemm_ld_peer4(pr + (unsigned)((mi * GEMM_NI + ni) * GEMM_NT * 16));
          acc[mi][ni][0] += v.x; acc[mi][ni][1] += v.y;
          acc[mi][ni][2] += v.z; acc[mi][ni][3] += v.w;
        }
    }
  }
  kg_gemm_cluster_sync();
  return kr == 0;
}
#else
#define GEMM_CLUSTER
#endif
]]
end

local function emit_mma(spec, P, design)
  local dt = P.dt
  local ct = kg.ctype(spec, dt)
  local atr = a_trans(P, design)
  local ast = atr and "BK * GEMM_BMP" or "BM * GEMM_BKP"
  local adecl, afetch, aput = "", "", ""
  if atr then adecl, afetch, aput = loader_trans(spec, P, "as_w", design.load == "cp4") end
  local function sta(ri, ki, v) return kg.store(spec, dt, "as_w", ri .. " * GEMM_BKP + " .. ki, v) end
  local function stb(ri, ki, v) return kg.store(spec, dt, "bs_w", ri .. " * GEMM_BKP + " .. ki, v) end
  local fold = ""
  if design.ln == "fold" then
    fold = fold_pass(spec, P,
      function(w, ri, ki)
        return kg.load(spec, dt, w == "A" and "as_c" or "bs_c", ri .. " * GEMM_BKP + " .. ki)
      end,
      function(ri, ki, v) return kg.store(spec, dt, "bs_c", ri .. " * GEMM_BKP + " .. ki, v) end)
  end
  local epi = mma_epilogue(spec, P, design)
  local src = {
    kg.prelude(spec),
    common(spec, P, design),
    kg.line() .. "\n" .. fill([[
#define GEMM_NT (32 * WM * WN)
#define GEMM_WTM (BM / WM)
#define GEMM_WTN (BN / WN)
#define GEMM_ROW(mi) (wm * GEMM_WTM + (mi) * 16)
#define GEMM_MI (GEMM_WTM / 16)
#define GEMM_NI (GEMM_WTN / 8)
#define GEMM_BKP (BK + $vec)
#define GEMM_BMP (BM + 8)
#define GEMM_MK $mk
#define GEMM_TAI GEMM_CDIV(BK * (BM / $vec), GEMM_NT)
#define GEMM_GLU_G GEMM_WTN
#define GEMM_KT GEMM_CDIV(GEMM_K, (long)BK)
#define GEMM_KTS GEMM_CDIV(GEMM_KT, (long)SPLITK)
#if BM % (16 * WM) != 0 || BN % (16 * WN) != 0 || BK % GEMM_MK != 0 || STAGES < 2
#error "mma needs 16-multiple warp tiles, BK a multiple of the mma k and STAGES >= 2"
#endif
]], { vec = P.vec, mk = P.dt == "f32" and 8 or 16 }),
    mma_helpers(spec, P, design),
    split_helpers(),
    kg.line() .. "\n" .. fill([[
KG_KERNEL void __launch_bounds__(GEMM_NT) GEMM_CLUSTER $name(
    $params)
{
  KG_GRID_DEP();
  extern __shared__ __align__(16) unsigned char kg_gemm_smem[];
  $ct *gemm_as = ($ct *)kg_gemm_smem;
  $ct *gemm_bs = gemm_as + STAGES * $ast;
$lnsh
  const int tid = (int)threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int wm = warp % WM, wn = warp / WM;
$tile
  /* split-K: the block of rank kr in its cluster takes K tiles [kt0, kt0 + nkt) */
  const unsigned kr = (unsigned)(KG_BID(0) % SPLITK);
  const long kt0 = (long)kr * GEMM_KTS;
  const long nkt = GEMM_KT - kt0 < GEMM_KTS ? (GEMM_KT - kt0 > 0 ? GEMM_KT - kt0 : 0) : GEMM_KTS;
  for (long z = KG_BID(2); z < GEMM_Z; z += KG_GDIM(2)) {
$acczero
$lnstart
    for (long it = 0; it < nkt + STAGES - 1; it++) {
      const long ct = it - (STAGES - 1);
$adecl
      if (it < nkt) {
        const long k0 = (kt0 + it) * BK;
        (void)k0;
$afetch
      }
      if (ct >= 0) {
        kg_gemm_wait<STAGES - 2>();
        __syncthreads();
        $ct *as_c = gemm_as + (int)(ct % STAGES) * $ast;
        $ct *bs_c = gemm_bs + (int)(ct % STAGES) * BN * GEMM_BKP;
        const long k0 = (kt0 + ct) * BK;
        (void)k0;
$fold
        #pragma unroll
        for (int ks = 0; ks < BK; ks += GEMM_MK) {
          unsigned af[GEMM_MI][4], bf[GEMM_NI][2];
          #pragma unroll
          for (int mi = 0; mi < GEMM_MI; mi++)
            $afrag
          #pragma unroll
          for (int nj = 0; nj < GEMM_NI / 2; nj++) {
            unsigned t[4];
            kg_gemm_ldsm4(t, bs_c + (wn * GEMM_WTN + nj * 16 + (lane & 7) + ((lane >> 4) << 3)) * GEMM_BKP + ks + ((lane >> 3) & 1) * (GEMM_MK / 2));
            bf[2 * nj][0] = t[0]; bf[2 * nj][1] = t[1];
            bf[2 * nj + 1][0] = t[2]; bf[2 * nj + 1][1] = t[3];
          }
$mmas
        }
      }
      if (it < nkt) {
        $ct *as_w = gemm_as + (int)(it % STAGES) * $ast;
        $ct *bs_w = gemm_bs + (int)(it % STAGES) * BN * GEMM_BKP;
        const long k0 = (kt0 + it) * BK;
        (void)as_w; (void)bs_w;
$loada
$loadb
      }
      kg_gemm_commit();
    }
    kg_gemm_wait<0>();
    __syncthreads();
#if SPLITK > 1
    if (!kg_gemm_split_reduce(acc, (float4 *)kg_gemm_smem + tid, kr)) continue;
#endif
$epi
    __syncthreads();
  }
}
]], { name = spec.kernel, params = kg.params(spec), ct = ct, lnsh = ln_shared(design),
      tile = tile_code:gsub("KG_BID%(0%)", "(KG_BID(0) / SPLITK)"), lnstart = ln_start(spec, P, design), fold = fold, acczero = acc_zero,
      loada = atr and aput or loader(spec, P, "A", design, sta, "as_w"),
      adecl = adecl, afetch = afetch,
      loadb = loader(spec, P, "B", design, stb, "bs_w"), epi = epi, ast = ast,
      afrag = afrag(atr, "af[mi]", dt == "f32"), mmas = dt == "f32" and mma_3xtf32 or mma_16 }),
  }
  return table.concat(src, "\n")
end

-- the wgmma path ------------------------------------------------------------------

-- wgmma.mma_async m64nNk16 with A from registers (the m16n8k16 A fragment of
-- each warp's 16 rows; ss: from shared memory through descriptor a) and B
-- from shared memory through descriptor b, accumulating into d[N / 2]
local function wgmma_fn(ab, n, ss, ta, sfx)
  local nd = n // 2
  local regs, outs = {}, {}
  for i = 0, nd - 1 do
    regs[#regs + 1] = "%" .. i
    outs[#outs + 1] = '"+f"(d[' .. i .. '])'
  end
  local lines = {}
  for i = 1, #outs, 8 do
    lines[#lines + 1] = table.concat(outs, ", ", i, math.min(i + 7, #outs))
  end
  if ss then
    return fill([[
static __device__ __forceinline__ void kg_wg_mma$n$sfx(float *d, unsigned long long a, unsigned long long b)
{
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %$one, 0;\n"
               "wgmma.mma_async.sync.aligned.$shape.f32.$ab.$ab {$regs}, "
               "%$a0, %$b, p, 1, 1, $ta, 0;\n}\n"
               : $outs
               : "l"(a), "l"(b), "r"(1));
}
]], { n = tostring(n), sfx = sfx or "", shape = "m64n" .. n .. "k16", ab = ab, regs = table.concat(regs, ", "),
      outs = table.concat(lines, ",\n                 "),
      a0 = tostring(nd), b = tostring(nd + 1), one = tostring(nd + 2), ta = ta and "1" or "0" })
  end
  return fill([[
static __device__ __forceinline__ void kg_wg_mma$n(float *d, const unsigned *a, unsigned long long b)
{
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %$one, 0;\n"
               "wgmma.mma_async.sync.aligned.$shape.f32.$ab.$ab {$regs}, "
               "{%$a0, %$a1, %$a2, %$a3}, %$b, p, 1, 1, 0;\n}\n"
               : $outs
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(1));
}
]], { n = tostring(n), shape = "m64n" .. n .. "k16", ab = ab, regs = table.concat(regs, ", "),
      outs = table.concat(lines, ",\n                 "),
      a0 = tostring(nd), a1 = tostring(nd + 1), a2 = tostring(nd + 2), a3 = tostring(nd + 3),
      b = tostring(nd + 4), one = tostring(nd + 5) })
end

local function wgmma_helpers(spec, P, ss, ta)
  local ab = P.dt == "bf16" and "bf16" or "f16"
  local fns = {}
  for _, n in ipairs({ 64, 128, 256 }) do
    fns[#fns + 1] = "#if GEMM_WTN == " .. n .. "\n" .. wgmma_fn(ab, n, ss, ta) ..
      "#define kg_wg_mma kg_wg_mma" .. n .. "\n" ..
      -- (ksplit: kg_wg_mmat reads the condition's M-major panels)
      (P.A.kind == "ksplit" and ss and wgmma_fn(ab, n, ss, true, "t") ..
        "#define kg_wg_mmat kg_wg_mma" .. n .. "t\n" or "") .. "#endif\n"
  end
  return kg.line() .. "\n" .. [[
static __device__ __forceinline__ void kg_wg_fence(void)
{
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
}
static __device__ __forceinline__ void kg_wg_commit(void)
{
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}
template <int N> static __device__ __forceinline__ void kg_wg_wait(void)
{
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" :: "n"(N) : "memory");
}
/* cp.async writes through the generic proxy, wgmma reads through the async
   one: this orders the two for shared memory */
static __device__ __forceinline__ void kg_wg_fence_async(void)
{
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}
/* keeps the compiler from moving accesses of an accumulator across the
   wgmma fences and waits */
static __device__ __forceinline__ void kg_wg_pin(float &x)
{
  asm volatile("" : "+f"(x) :: "memory");
}
/* the descriptor of a K-major tile of 8-row groups of 128-byte rows, 128-byte
   swizzle (16-byte chunk c of row r stored at chunk c ^ (r % 8)): start
   address, leading offset (unused by this layout, 1), stride offset 1024
   bytes (one 8-row group), layout 1 = 128B swizzle */
static __device__ __forceinline__ unsigned long long kg_wg_desc(const void *p)
{
  const unsigned a = (unsigned)__cvta_generic_to_shared(p);
  return (unsigned long long)((a & 0x3FFFFu) >> 4) | (1ull << 16) |
         ((unsigned long long)(1024 >> 4) << 32) | (1ull << 62);
}
]] .. table.concat(fns)
end

-- the copy loops' unrolling: whole on the sync schedule; by 4 on the
-- producer of sched=ws, which keeps few registers (setmaxnreg) and would
-- spill the addresses of a whole unrolled tile
local function unroll(design)
  return design.sched ~= "sync" and " 4" or ""
end

-- C code copying the tile of operand `which` for k0 (A: BM rows, B: BN
-- rows, of BK = 64 halves) into the swizzled layout at as_w / bs_w with
-- cp.async
local function loader_swz(spec, P, design, which)
  local o = operand(P, which, design)
  -- gemm_glu's B rows (rowcode): tile row ri0 + 16 i is weight row
  -- n0 + ri0 + GEMM_GLU_R(i), of output column n0 + ri0 + GEMM_GLU_C(i),
  -- where 16 rows (GEMM_LT = 128) divide a half of GEMM_GLU_G
  local glu = which == "B" and P.glu
  if #o.mp.rd <= 1 and (not glu or design.sched ~= "sync") then
    -- the rows are one affine axis: each thread keeps one 16-byte column
    -- ch of rows ri0, ri0 + GEMM_LT / 8, ..., so one address per thread
    -- and K tile and constant steps between its rows (GEMM_LT is a
    -- multiple of 128: the swizzle's row % 8 stays ri0's)
    local sr = #o.mp.rd == 1 and o.mp.rd[1][2] or 0
    local ci, ri = "i * (GEMM_LT / 8)", "i * (GEMM_LT / 8)"
    if glu then ci, ri = "GEMM_GLU_C(i)", "GEMM_GLU_R(i)" end
    return kg.line() .. "\n" .. fill([[
      {
        const int ri0 = tid >> 3, ch = tid & 7;
        const long r = $r0 + ri0, k = k0 + ch * 8;
        const $ct *p = $ptr + ($addr);
        $ct *s = $dst + ri0 * 64 + ((ch ^ (ri0 & 7)) << 3);
        #pragma unroll
        for (int i = 0; i < GEMM_CDIV($R, GEMM_LT / 8); i++)
          if ($R % (GEMM_LT / 8) == 0 || ri0 + i * (GEMM_LT / 8) < $R) {
            const int in = r + $ci < $lim && k < GEMM_K;
            kg_gemm_cp16(s + i * (GEMM_LT / 8) * 64, in ? p + $ri * $step : $ptr, in);
          }
      }
]], { r0 = which == "A" and "m0" or "n0", lim = which == "A" and "GEMM_M" or "GEMM_N", ci = ci, ri = ri,
      R = which == "A" and "BM" or "BN", dst = which == "A" and "as_w" or "bs_w",
      ct = kg.ctype(spec, P.dt), ptr = o.mp.arg.cname, addr = addr(o.mp, "z", "r", "k"),
      step = (I32 and tostring or lit)(sr) })
  end
  return kg.line() .. "\n" .. fill([[
      #pragma unroll$u
      for (int i = 0; i < GEMM_CDIV($R * 8, GEMM_LT); i++) {
        const int e = tid + i * GEMM_LT;
        if (($R * 8) % GEMM_LT == 0 || e < $R * 8) {
          const int ri = e >> 3, ch = e & 7;
          $row
          const long k = k0 + ch * 8;
          const int in = ok && k < GEMM_K;
          kg_gemm_cp16($dst + ri * 64 + ((ch ^ (ri & 7)) << 3), in ? $ptr + ($addr) : $ptr, in);
        }
      }
]], { R = which == "A" and "BM" or "BN", dst = which == "A" and "as_w" or "bs_w",
      u = unroll(design),
      row = rowcode(P, which, design), ptr = o.mp.arg.cname, addr = addr(o.mp, "z", "r", "k") })
end

-- C code copying rows m0.. of map mp for k0 (BK = 64 values of k, 8
-- consecutive rows per 16-byte cp.async) into a_desc's M-major panels at
-- dst: 64 rows to a panel of 64 128-byte k rows, chunk c of row k at
-- chunk c ^ (k % 8)
local function loader_mpanel(mp, dst, design, ct)
  if #mp.cd <= 1 then
    -- each thread keeps one run of 8 rows (mc) and steps along k, which is
    -- one affine axis: one address per thread and K tile (GEMM_KP k rows
    -- a pass)
    local sk = #mp.cd == 1 and mp.cd[1][2] or 0
    return kg.line() .. "\n" .. fill([[
      {
        const int mc = tid % (BM / 8), ki0 = tid / (BM / 8);
        const long r0 = m0 + mc * 8, k = k0 + ki0;
        const $ct *p = $ptr + ($addr);
        #pragma unroll
        for (int i = 0; i < GEMM_CDIV(BK, GEMM_KP); i++) {
          const int ki = ki0 + i * GEMM_KP;
          const int in = r0 < GEMM_M && k0 + ki < GEMM_K;
          if (BK % GEMM_KP == 0 || ki < BK)
            kg_gemm_cp16($dst + GEMM_MP(mc, ki),
                         in ? p + i * GEMM_KP * $sk : $ptr, in);
        }
      }
]], { dst = dst, ptr = mp.arg.cname, addr = addr(mp, "z", "r0", "k"), ct = ct,
      sk = (I32 and tostring or lit)(sk) })
  end
  return kg.line() .. "\n" .. fill([[
      #pragma unroll$u
      for (int i = 0; i < GEMM_CDIV(BK * (BM / 8), GEMM_LT); i++) {
        const int e = tid + i * GEMM_LT;
        if ((BK * (BM / 8)) % GEMM_LT == 0 || e < BK * (BM / 8)) {
          const int ki = e / (BM / 8), mc = e % (BM / 8);
          const long r0 = m0 + mc * 8, k = k0 + ki;
          const int in = r0 < GEMM_M && k < GEMM_K;
          kg_gemm_cp16($dst + GEMM_MP(mc, ki),
                       in ? $ptr + ($addr) : $ptr, in);
        }
      }
]], { dst = dst, ptr = mp.arg.cname, addr = addr(mp, "z", "r0", "k"), u = unroll(design) })
end

-- the conv's pass over a landed stage, its raw rows (fs_x) to the panels
-- (as_x): each thread keeps one run of 8 rows (mc) and takes k rows ki0,
-- ki0 + GEMM_KP, ...; k past K gets zeros (B is zero there too).  With
-- u = k0 % KS + ki0, row i's raw row is u / KS + (s + i * KP) / KS and its
-- tap (s + i * KP) % KS, s = u % KS: a case of the switch for each s leaves
-- every tap, and so every shift, a constant (the shift by a variable took
-- 20 instructions a chunk, and the producer of sched=ws could not keep up
-- with the MMAs: Nsight Compute, docs/performance.md attempt 16)
local function conv_pass(P, ct)
  local g = conv_geom(P)
  local cases = {}
  for cs = 0, g.KS - 1 do
    cases[#cases + 1] = fill([[
        case $s:
          #pragma unroll
          for (int i = 0; i < GEMM_CDIV(BK, GEMM_KP); i++) {
            const int ki = ki0 + i * GEMM_KP, j = $s + i * GEMM_KP;
            if (BK % GEMM_KP == 0 || ki < BK) {
              const int sh = j % GEMM_CV_KS * GEMM_CV_DIL + GEMM_CV_SH0;
              const uint4 *p = (const uint4 *)(src + j / GEMM_CV_KS * GEMM_CV_W + (sh & ~7));
              const uint4 v = kg_cv_shift(p[0], p[1], sh & 7);
              *(uint4 *)(as_x + GEMM_MP(mc, ki)) =
                GEMM_K % BK == 0 || k0 + ki < GEMM_K ? v : make_uint4(0u, 0u, 0u, 0u);
            }
          }
          break;]], { s = cs })
  end
  return kg.line() .. "\n" .. fill([[
      {
        const int k0 = (int)kx * BK;
        const int mc = tid % (BM / 8), ki0 = tid / (BM / 8), u = k0 % GEMM_CV_KS + ki0;
        const $ct *src = fs_x + u / GEMM_CV_KS * GEMM_CV_W + mc * 8;
        switch (u % GEMM_CV_KS) {
$cases
        }
      }
]], { ct = ct, cases = table.concat(cases, "\n") })
end

-- a_desc's pieces: `early`, the cp.async of stage ws's raw A (and gated's
-- filter half at fs_w); `xf`, the prologue in place over the landed stage
-- at as_x (fs_x) holding K tile kx (empty when there is none).  Each
-- thread takes whole 16-byte chunks: 8 values along K of one row ("k") or
-- 8 rows at one k ("m").
local function adesc_code(spec, P, design, mode)
  local A, dt = P.A, P.dt
  local ct = kg.ctype(spec, dt)
  local early, body
  if A.kind == "convt" then return "", "" end
  if mode == "k" then
    early = loader_swz(spec, P, design, "A")
  elseif A.kind == "gated" then
    early = loader_mpanel(A.gate, "as_w", design, ct) .. loader_mpanel(A.filt, "fs_w", design, ct)
  elseif A.kind == "conv" and conv_tma(P, design) then
    -- the raw rows by one TMA copy of thread 0 onto the stage's own
    -- barrier (gemm_raw), zero outside x (the channel and time axes)
    early = kg.line() .. "\n" .. fill([[
        if (tid == 0) {
          kg_mb_expect(&gemm_raw[ws], (unsigned)(GEMM_CV_NCH * GEMM_CV_W * sizeof(*fs_w)));
          kg_tma3(fs_w, &kg_tmX, (int)(m0 % $tout) - GEMM_CV_PADA, (int)(k0 / GEMM_CV_KS),
                  (int)(m0 / $tout), &gemm_raw[ws]);
        }
]], { tout = lit(A.Tout) })
    return early, conv_pass(P, ct)
  elseif A.kind == "conv" then
    -- the raw rows: GEMM_CV_NCH rows of GEMM_CV_W / 8 chunks; past Cin
    -- and outside [0, Tin) zero-filled (32-bit offsets where they fit)
    local L = I32 and tostring or lit
    early = kg.line() .. "\n" .. fill([[
      {
        const $it t0 = ($it)(m0 % $tout) - GEMM_CV_PADA, c0 = ($it)(k0 / GEMM_CV_KS);
        const $ct *xb = $x + ($off + ($it)(m0 / $tout) * $sxb + ((int)z * $cig + c0) * $sxc + t0);
        #pragma unroll
        for (int i = 0; i < GEMM_CDIV(GEMM_CV_NCH * (GEMM_CV_W / 8), GEMM_LT); i++) {
          const int e = tid + i * GEMM_LT;
          const int r = e / (GEMM_CV_W / 8), c = e % (GEMM_CV_W / 8);
          const int t = (int)t0 + c * 8;
          const int in = c0 + r < $cig && t >= 0 && t < $tin;
          if ((GEMM_CV_NCH * (GEMM_CV_W / 8)) % GEMM_LT == 0 || e < GEMM_CV_NCH * (GEMM_CV_W / 8))
            kg_gemm_cp16(fs_w + r * GEMM_CV_W + c * 8, in ? xb + (($it)r * $sxc + c * 8) : $x, in);
        }
      }
]], { tout = L(A.Tout), tin = tostring(A.Tin), cig = L(A.Cig), x = A.x.cname, off = L(A.off),
      sxb = L(A.sxB), sxc = L(A.sxC), ct = ct, it = I32 and "int" or "long" })
    return early, conv_pass(P, ct)
  else
    early = loader_mpanel(A.mp, "as_w", design, ct)
  end
  if A.kind == "gated" then
    body = "          uint4 *p = (uint4 *)(as_x + o);\n" ..
      "          const uint4 gq = *p, fq = *(const uint4 *)(fs_x + o);\n" ..
      gated_pairs(spec, dt, "gq", "fq", "zq") .. "          *p = zq;"
  elseif A.kind == "ln" then
    local g, b = P.ln.gamma, P.ln.beta
    local function gb(k)
      return kg.load(spec, g.arg.dtype, g.arg.cname, addr(g, "z", "0", k)),
        kg.load(spec, b.arg.dtype, b.arg.cname, addr(b, "z", "0", k))
    end
    -- row u of the chunk's mean and rstd, gamma and beta at its k
    local mu, rs, gk, bk
    if mode == "k" then
      mu, rs = "gemm_mean[ri]", "gemm_rstd[ri]"
      gk, bk = gb("(k + u)")
    else
      mu, rs = "gemm_mean[mc * 8 + u]", "gemm_rstd[mc * 8 + u]"
      gk, bk = "gk", "bk"
    end
    local pre = ""
    if mode == "m" then
      local g0, b0 = gb("k")
      pre = "          const float gk = k < GEMM_K ? " .. g0 .. " : 0.0f, bk = k < GEMM_K ? " ..
        b0 .. " : 0.0f;\n"
    end
    body = fill([[
          $ct *h = as_x + o;
$pre          #pragma unroll
          for (int u = 0; u < 8; u++) {
            const float xv = $x;
            $st
          }]], { ct = ct, pre = pre,
                x = kg.load(spec, dt, "h", "u"),
                st = kg.store(spec, dt, "h", "u", mode == "k" and
                  "k + u < GEMM_K ? (xv - " .. mu .. ") * " .. rs .. " * " .. gk .. " + " .. bk .. " : 0.0f" or
                  "(xv - " .. mu .. ") * " .. rs .. " * gk + bk") })
  else
    return early, ""
  end
  local walk = mode == "k" and [[
          const int ri = e >> 3, ch = e & 7;
          const int o = ri * 64 + ((ch ^ (ri & 7)) << 3);
          const long k = k0 + ch * 8;]] or [[
          const int ki = e / (BM / 8), mc = e % (BM / 8);
          const int o = GEMM_MP(mc, ki);
          const long k = k0 + ki;]]
  local xf = kg.line() .. "\n" .. fill([[
      {
        const long k0 = kx * BK;
        #pragma unroll 2
        for (int e = tid; e < BM * 8; e += GEMM_LT) {
$walk
          (void)k;
$body
        }
      }
]], { walk = walk, body = body })
  return early, xf
end

-- sched=ws, ln=prepass: LayerNorm in place over the landed K-major tile
-- of stage as_x (K tile kx) by the producer's 128 threads.  Each keeps one
-- 16-byte column ch (its gamma and beta loaded once per tile) of rows ri0,
-- ri0 + 16, ...: y = (x * rstd - mean * rstd) * gamma + beta.  Columns past
-- K get gamma = beta = 0 (x there is cp.async's zero fill), so y = 0.
-- sched=ws, LayerNorm: can gamma and beta travel with each A tile, 64 of
-- each by cp.async into the stage's slice of gemm_gb (16-byte chunks,
-- zero-filled past K)?  A global load per tile in the producer's pass
-- waited its full latency every K step.
local function ws_ln_gb(P)
  local g, b = P.ln.gamma, P.ln.beta
  return aligned(g, 8) and aligned(b, 8) and g.arg.dtype == P.dt and b.arg.dtype == P.dt
end

-- the producer's cp.async of tile k0's gamma and beta (ws_ln_gb)
local function ws_ln_gb_load(spec, P)
  local g, b = P.ln.gamma, P.ln.beta
  return fill([[
        if (tid < 16) {
          const long kc = k0 + (tid & 7) * 8;
          const int in = kc < GEMM_K;
          kg_gemm_cp16(gemm_gb + ws * 128 + tid * 8,
                       !in ? $gp : tid < 8 ? $gp + ($ga) : $bp + ($ba), in);
        }
]], { gp = g.arg.cname, ga = addr(g, "z", "0", "kc"), bp = b.arg.cname, ba = addr(b, "z", "0", "kc") })
end

local function ws_ln_xform(spec, P)
  local ct = kg.ctype(spec, P.dt)
  local g, b = P.ln.gamma, P.ln.beta
  local gb
  if ws_ln_gb(P) then
    gb = fill([[
          {
            const uint4 gq = *(const uint4 *)(gemm_gb + xs * 128 + ch * 8),
                        bq = *(const uint4 *)(gemm_gb + xs * 128 + 64 + ch * 8);
            const $ct *gh = (const $ct *)&gq, *bh = (const $ct *)&bq;
            #pragma unroll
            for (int u = 0; u < 8; u++) { gv[u] = $gu; bv[u] = $bu; }
          }]], { ct = ct, gu = kg.load(spec, P.dt, "gh", "u"), bu = kg.load(spec, P.dt, "bh", "u") })
  else
    gb = fill([[
          #pragma unroll
          for (int u = 0; u < 8; u++)
            if (k + u < GEMM_K) { gv[u] = $gu; bv[u] = $bu; }]], {
      gu = kg.load(spec, g.arg.dtype, g.arg.cname, addr(g, "z", "0", "(k + u)")),
      bu = kg.load(spec, b.arg.dtype, b.arg.cname, addr(b, "z", "0", "(k + u)")) })
  end
  return kg.line() .. "\n" .. fill([[
      {
        const int ch = tid & 7, ri0 = tid >> 3;
        const long k = kx * BK + ch * 8;
        float gv[8], bv[8];
        #pragma unroll
        for (int u = 0; u < 8; u++) { gv[u] = 0.0f; bv[u] = 0.0f; }
$gb
        $ct *base = as_x + ri0 * 64 + ((ch ^ (ri0 & 7)) << 3);
        #pragma unroll 4
        for (int i = 0; i < BM / 16; i++) {
          const int ri = ri0 + i * 16;
          uint4 *p = (uint4 *)(base + i * 1024);
          uint4 q = *p;
          $ct *h = ($ct *)&q;
          const float a = gemm_rstd[ri], c = -gemm_mean[ri] * a;
          #pragma unroll
          for (int u = 0; u < 8; u++) {
            const float xv = $hu;
            $st
          }
          *p = q;
        }
      }
]], { gb = gb, ct = ct, hu = kg.load(spec, P.dt, "h", "u"),
      st = kg.store(spec, P.dt, "h", "u", "fmaf(fmaf(xv, a, c), gv[u], bv[u])") })
end

-- the staged epilogue's passes of GEMM_EM rows (one unless sched=pp)
local function epi_passes(body)
  return "    #pragma unroll\n    for (int ec = 0; ec < BM / GEMM_EM; ec++) {\n" ..
    "    const long me0 = m0 + ec * GEMM_EM;\n" .. body .. "    }\n"
end

-- the accumulators go through an f32 tile in shared memory (laid out along
-- the output's contiguous axis), then every thread writes runs of the
-- output along that axis: 8 elements and one 16-byte store per run where
-- vec_epi allows, else one element at a time
local function staged_epilogue(spec, P, design)
  local mf = out_mfast(P)
  local put = mf and [[
            ctp[GEMM_CTO(dr, ni * 8)] = acc[mi][ni][h * 2];
            ctp[GEMM_CTO(dr, ni * 8 + 1)] = acc[mi][ni][h * 2 + 1];]] or [[
            *(float2 *)&ctp[GEMM_CTO(dr, ni * 8)] = make_float2(acc[mi][ni][h * 2], acc[mi][ni][h * 2 + 1]);]]
  -- (sched=pp: each consumer warpgroup stages its tile in passes of
  -- GEMM_EM = 64 rows through its own f32 tile; else one pass of BM rows
  -- through a tile over the stages)
  local ctdef = (mf and "#define GEMM_CTO(r, c) ((c) * (GEMM_EM + 4) + (r))\n" ..
    "#define GEMM_EST (BN * (GEMM_EM + 4))" or
    "#define GEMM_CTO(r, c) ((r) * (BN + 4) + (c))\n#define GEMM_EST (GEMM_EM * (BN + 4))") ..
    "\n#define GEMM_CT(r, c) gemm_ct[GEMM_CTO(r, c)]"
  local head = kg.line() .. "\n" .. fill([[
    GEMM_CSYNC();
    {
    /* one address a thread, every store at a constant offset from it (an
       address of its own for each store held 32 registers through the
       epilogue) */
    float *const ctp = &GEMM_CT(GEMM_ROW(0) + (lane >> 2), wn * GEMM_WTN + (lane & 3) * 2);
    #pragma unroll
    for (int mi = 0; mi < GEMM_MI; mi++)
      #pragma unroll
      for (int h = 0; h < 2; h++) {
        if (GEMM_EM < BM && mi != ec) continue;
        const int dr = mi * 64 - ec * GEMM_EM + h * 8;
        #pragma unroll
        for (int ni = 0; ni < GEMM_NI; ni++) {
$put
        }
      }
    }
    GEMM_CSYNC();
]], { put = put })
  -- the column of the tile that holds output column nl (gemm_glu keeps a
  -- warpgroup's value and gate halves side by side)
  local function col(nl)
    if not P.glu then return nl end
    return "(" .. nl .. ") / (GEMM_WTN / 2) * GEMM_WTN + (" .. nl .. ") % (GEMM_WTN / 2)"
  end
  local fixv = ""
  if design.ln == "fold" then
    fixv = "\n          const float mu = gemm_rs[ri] / (float)GEMM_K;\n          " ..
      fold_fix(spec, P, "gemm_rq[ri]", "gemm_cw[nl]", "gemm_cb[nl]")
  end
  if not vec_epi(P, mf) then
    local walk = mf and "const int ri = e % GEMM_EM, nl = e / GEMM_EM;" or
      "const int ri = e / GEMM_BNL, nl = e % GEMM_BNL;"
    local val = "          " .. (fixv ~= "" and "float" or "const float") ..
      " v = GEMM_CT(ri, " .. col("nl") .. ")" ..
      (P.glu and ", g = GEMM_CT(ri, " .. col("nl") .. " + GEMM_WTN / 2)" or "") .. ";" .. fixv
    return epi_passes(head .. fill([[
    #pragma unroll 4
    for (int e = tid; e < GEMM_EM * GEMM_BNL; e += GEMM_NT) {
      $walk
      const long m = me0 + ri, n = n0 + nl;
      if (m < GEMM_M && n < GEMM_N) {
$val
        $epi
      }
    }
]], { walk = walk, val = val, epi = epilogue(spec, P) })), ctdef
  end
  -- 8 at a time: the values as two float4 from the tile, the residual as one
  -- 16-byte load, the results packed in registers, then stored
  local ct = kg.ctype(spec, P.dt)
  local outs = { { P.out, "pk_o", "nb" } }
  if P.skip then
    outs[2] = { P.skip, "pk_s", "(nb - " .. lit(P.C) .. ")" }
  end
  local io = {
    st = function(mp, x) return kg.store(spec, P.dt, mp == P.out and "pk_o" or "pk_s", "j", x) end,
    ld = function() return kg.load(spec, P.dt, "rx", "j") end,
  }
  -- along a row (not mf) a thread's runs keep one column group, nl0 =
  -- tid % (GEMM_BNL / 8) * 8 (GEMM_NT is a multiple of 128): its 8 columns'
  -- bias, gate bias and scale are loaded once a tile (cc_b, cc_g, cc_s),
  -- by the caller before the K loop (colpre), so that they land under it
  local colpre = ""
  if not mf then
    local vecs = { { "b", P.bias, "n" }, { "g", P.glu and P.bias, "(n + " .. lit(P.N) .. ")" },
                   { "s", P.cscale, "n" } }
    for _, v in ipairs(vecs) do
      if v[2] then
        colpre = colpre .. fill([[
    float cc_$w[8];
    #pragma unroll
    for (int j = 0; j < 8; j++) {
      const long n = n0 + tid % (GEMM_BNL / 8) * 8 + j;
      cc_$w[j] = n < GEMM_N ? $ld : 0.0f;
    }
]], { w = v[1], ld = colload(spec, P, v[2], v[3]) })
      end
    end
    if colpre ~= "" then
      colpre = "#if GEMM_NT % (GEMM_BNL / 8) != 0\n#error \"a thread's runs change column group\"\n#endif\n" ..
        colpre
      io.col = function(w) return "cc_" .. w .. "[j]" end
    end
  end
  local step = mf and { "ri0 + 4", col("nl0") } or { "ri0", col("nl0") .. " + 4" }
  local function two(dst, c)
    return fill("*(float4 *)&$d[0] = *(const float4 *)&GEMM_CT(ri0, $c);\n" ..
      "        *(float4 *)&$d[4] = *(const float4 *)&GEMM_CT($r, $c2);\n",
      { d = dst, c = c, r = step[1], c2 = step[2] .. (c ~= col("nl0") and " + GEMM_WTN / 2" or "") })
  end
  -- the values of all GEMM_EU runs are read from the tile before any is
  -- used, so that their shared-memory latencies overlap
  local walk = mf and "const int ri0 = e % (GEMM_EM / 8) * 8, nl0 = e / (GEMM_EM / 8);" or
    "const int ri0 = e / (GEMM_BNL / 8), nl0 = e % (GEMM_BNL / 8) * 8;"
  local ctpre = fill([[
      float cva[GEMM_EU][8];$gdecl
      #pragma unroll
      for (int u = 0; u < GEMM_EU; u++) {
        const int e = e0 + u * GEMM_NT;
        $walk
        if (e < GEMM_EM * GEMM_BNL / 8) {
          $cv$gv
        }
      }
]], { gdecl = P.glu and "\n      float gva[GEMM_EU][8];" or "", walk = walk,
      cv = two("cva[u]", col("nl0")):gsub("\n        %*", "\n          *"):gsub("\n$", ""),
      gv = P.glu and "\n          " ..
        two("gva[u]", col("nl0") .. " + GEMM_WTN / 2"):gsub("\n        %*", "\n          *"):gsub("\n$", "") or "" })
  local loads = "        const float *cv = cva[u];\n" .. (P.glu and "        const float *gv = gva[u];\n" or "")
  -- the residual: GEMM_EU runs' 16-byte loads issued before any of them is
  -- used (one at a time left each thread waiting a full memory latency per
  -- run)
  local prefetch = ctpre
  if P.res then
    local cond = P.epi == "gated" and " && nb < " .. lit(P.C) or ""
    prefetch = prefetch .. fill([[
      uint4 rxa[GEMM_EU];
      #pragma unroll
      for (int u = 0; u < GEMM_EU; u++) {
        const int e = e0 + u * GEMM_NT;
        $walk
        const long mb = me0 + ri0, nb = n0 + nl0;
        rxa[u] = make_uint4(0u, 0u, 0u, 0u);
        if (e < GEMM_EM * GEMM_BNL / 8 && mb < GEMM_M && nb < GEMM_N$cond)
          rxa[u] = *(const uint4 *)($p + ($a));
      }
]], { cond = cond, p = P.res.arg.cname, a = addr(P.res, "z", "mb", "nb"), walk = walk })
    loads = loads .. fill([[
        const uint4 rxv = rxa[u];
        const $ct *rx = (const $ct *)&rxv;
]], { ct = ct })
  end
  local decl, stores = "", {}
  for i, o in ipairs(outs) do
    decl = decl .. "        __align__(16) " .. ct .. " " .. o[2] .. "[8];\n"
    local stv = "*(uint4 *)(" .. o[1].arg.cname .. " + (" .. addr(o[1], "z", "mb", o[3]) ..
      ")) = *(const uint4 *)" .. o[2] .. ";"
    if #outs == 2 then
      stv = (i == 1 and "if (nb < " .. lit(P.C) .. ") " or "else ") .. stv
    end
    stores[#stores + 1] = "        " .. stv
  end
  local val = "          " .. (fixv ~= "" and "float" or "const float") .. " v = cv[j]" ..
    (P.glu and ", g = gv[j]" or "") .. ";" .. fixv
  if design.ln == "fold" and not mf then
    -- one row per run: its mean and rstd once
    loads = loads .. "        const float mu = gemm_rs[ri0] / (float)GEMM_K, rsd = " ..
      fold_rstd(spec, P, "gemm_rq[ri0]") .. ";\n"
    val = "          float v = rsd * (cv[j] - mu * gemm_cw[nl]) + gemm_cb[nl];"
  end
  -- per element, or (epilogue_n) the activation a step of all 8 at a time
  local jhead = fill([[
        #pragma unroll
        for (int j = 0; j < 8; j++) {
          const int ri = ri0$rj, nl = nl0$nj;
          const long m = me0 + ri, n = n0 + nl;
          (void)m;
$val
]], { rj = mf and " + j" or "", nj = mf and "" or " + j", val = val })
  local en = epilogue_n(spec, P, io)
  local jloop
  if en then
    jloop = fill([[
        $decl
$jhead          $pre
        }
        $act
        #pragma unroll
        for (int j = 0; j < 8; j++) $post
]], { decl = en.decl, jhead = jhead, pre = en.pre, act = en.act, post = en.post })
  else
    jloop = jhead .. "          " .. epilogue(spec, P, io) .. "\n        }\n"
  end
  return epi_passes(head .. fill([[
    #pragma unroll 1
    for (int e0 = tid; e0 < GEMM_EM * GEMM_BNL / 8; e0 += GEMM_EU * GEMM_NT) {
$prefetch      #pragma unroll
      for (int u = 0; u < GEMM_EU; u++) {
      const int e = e0 + u * GEMM_NT;
      $walk
      const long mb = me0 + ri0, nb = n0 + nl0;
      if (e < GEMM_EM * GEMM_BNL / 8 && mb < GEMM_M && nb < GEMM_N) {
$loads$decl$jloop
$stores
      }
      }
    }
]], { prefetch = prefetch, walk = walk, loads = loads, decl = decl, jloop = jloop,
      stores = table.concat(stores, "\n") })), ctdef, colpre
end


-- the register epilogue: bias, scale and activation on the accumulators
-- where the MMAs left them, a step of all of a column group's values at a
-- time (kg.unary_n), the results rounded to the output type into a 16-bit
-- tile laid out along the output's contiguous axis (BM x (GEMM_BNL + 8),
-- or its transpose for a channel-first output), then copied out 16 bytes a
-- thread, a residual added on the way (its 16-byte runs read with the
-- tile's: out = x + round(o), as eager PyTorch rounds a linear's output
-- before its residual add).  Against the staged epilogue: half the
-- shared-memory traffic and one pass whatever BM (the staged one's first
-- pass under sched=pp kept the second pass's accumulators live, and ptxas
-- then ran each value's GELU chain alone).  Returns the code after the K
-- loop, the column vectors' loads before it (colpre) and the tile's macros.
local function reg_epilogue(spec, P, design)
  local ct = kg.ctype(spec, P.dt)
  local mf = out_mfast(P)
  local h2 = P.dt == "bf16" and "__nv_bfloat162" or "__half2"
  local pk = P.dt == "bf16" and "__floats2bfloat162_rn" or "__floats2half2_rn"
  local tst = tma_store(P, design)
  local tres = res_tma(spec, P, design)
  local pres = res_pp(P, design)
  -- (the gate: both halves go to the tile, value columns first, and the
  -- copy-out adds the residual to each and gates them; reg_epi: mf)
  local gate = P.epi == "gate"
  local ctdef = "#define GEMM_WTNL (GEMM_BNL / WN)   /* a warpgroup's output columns */\n" ..
    "#define GEMM_NIL (GEMM_WTNL / 8)\n" ..
    (tst and (mf and "#define GEMM_TST (BM % 64 == 0)   /* tma_store: 64-row panels */\n" or
      "#define GEMM_TST (GEMM_WTNL % 64 == 0)   /* tma_store: 64-column panels */\n") ..
      "#if GEMM_TST\n#define GEMM_EST (BM * GEMM_BNL / 2)   /* the TMA store's tile in floats */\n#else\n" or
      "#define GEMM_TST 0\n") .. (mf and
    "#define GEMM_HS (BM + 8)   /* the 16-bit tile's stride: a column of BM rows */\n" ..
    (gate and "#define GEMM_EST (GEMM_BNL * GEMM_HS)   /* its size in floats: both halves */" or
      "#define GEMM_EST (GEMM_BNL * GEMM_HS / 2)   /* its size in floats */") or
    "#define GEMM_HS (GEMM_BNL + 8)   /* the 16-bit tile's row stride */\n" ..
    "#define GEMM_EST (BM * GEMM_HS / 2)   /* its size in floats */") .. (tst and "\n#endif" or "")
  -- the column vectors of this thread's 2 GEMM_NIL columns (ln=fold: the
  -- bias is in the panel's column sums, gemm_cb)
  local fold = design.ln == "fold"
  local vecs = { { "b", bias_acc(P, design) and P.bias, "n" }, { "s", P.cscale, "n" } }
  if P.glu and P.bias then vecs[3] = { "g", P.bias, "(n + " .. lit(P.N) .. ")" } end
  local colpre, cvecs = "", {}
  for _, v in ipairs(vecs) do
    if v[2] then
      cvecs[#cvecs + 1] = { w = v[1], ld = colload(spec, P, v[2], v[3]) }
      colpre = colpre .. fill([[
    float rc_$w[GEMM_NIL][2];
    #pragma unroll
    for (int ni = 0; ni < GEMM_NIL; ni++)
      #pragma unroll
      for (int q = 0; q < 2; q++) {
        const long n = n0 + wn * GEMM_WTNL + ni * 8 + (lane & 3) * 2 + q;
        rc_$w[ni][q] = n < GEMM_N ? $ld : 0.0f;
      }
]], { w = v[1], ld = colload(spec, P, v[2], v[3]) })
    end
  end
  -- (the bias is in the accumulators from the start: acc_init)
  local b = ""
  local body
  if gate then
    body = [[
        float x[GEMM_MI * 4], g[GEMM_MI * 4];
        #pragma unroll
        for (int mi = 0; mi < GEMM_MI; mi++)
          #pragma unroll
          for (int q = 0; q < 4; q++) {
            x[mi * 4 + q] = acc[mi][ni][q];
            g[mi * 4 + q] = acc[mi][ni + GEMM_NIL][q];
          }
]]
  elseif P.glu then
    local act = kg.unary_n(spec, P.act, "g", "GEMM_MI * 4", {})
    body = fill([[
        float x[GEMM_MI * 4], g[GEMM_MI * 4];
        #pragma unroll
        for (int mi = 0; mi < GEMM_MI; mi++)
          #pragma unroll
          for (int q = 0; q < 4; q++) {
            x[mi * 4 + q] = acc[mi][ni][q]$b;
            g[mi * 4 + q] = acc[mi][ni + GEMM_NIL][q]$bg;
          }
        $act
        #pragma unroll
        for (int i = 0; i < GEMM_MI * 4; i++) x[i] *= g[i];
]], { b = b, bg = "",
      act = act or "#pragma unroll\n        for (int i = 0; i < GEMM_MI * 4; i++) g[i] = " ..
        kg.unary(spec, P.act, "g[i]", {}) .. ";" })
  else
    local act = ""
    if P.epi == "gelu" then
      act = kg.unary_n(spec, "gelu", "x", "GEMM_MI * 4", { approximate = P.approximate }) or
        "#pragma unroll\n        for (int i = 0; i < GEMM_MI * 4; i++) x[i] = " ..
        kg.unary(spec, "gelu", "x[i]", { approximate = P.approximate }) .. ";"
    end
    local v = "acc[mi][ni][q]" .. b
    -- (ln=fold: rstd * (acc - mean * cw[n]) + cb[n], with cb[n] holding
    -- the bias: two FMAs from the row's rstd and rstd * mean)
    if fold then
      v = "fmaf(fr_r[mi][q >> 1], acc[mi][ni][q], fmaf(-fr_m[mi][q >> 1], fc_w[q & 1], fc_b[q & 1]))"
    end
    if P.cscale then v = "(" .. v .. ") * rc_s[ni][q & 1]" end
    if P.epi == "gelu" then v = pre_scale(P, v) end
    body = fill([[
$fcol        float x[GEMM_MI * 4];
        #pragma unroll
        for (int mi = 0; mi < GEMM_MI; mi++)
          #pragma unroll
          for (int q = 0; q < 4; q++) x[mi * 4 + q] = $v;
$act]], { v = v, act = act ~= "" and "        " .. act .. "\n" or "",
      fcol = fold and [[
        const int fj = wn * GEMM_WTNL + ni * 8 + (lane & 3) * 2;
        const float fc_w[2] = { gemm_cw[fj], gemm_cw[fj + 1] }, fc_b[2] = { gemm_cb[fj], gemm_cb[fj + 1] };
]] or "" })
  end
  -- a thread's pair of columns lies along a row of the tile (two values,
  -- one 4-byte store) or, channel-first, across two of its columns
  -- (tma_store: into the swizzled panels, 16-byte chunk c of row r at
  -- chunk c ^ (r % 8); a thread's rows are lane / 4 modulo 8)
  -- (res_pp: the residual's value there first, out = x + round(o))
  local tput
  if tst and mf then
    -- (a channel-first tile: panel r / 64 of BNL rows of 128 bytes, row n
    -- holding column n's 64 outputs, chunk c of 8 at c ^ (n % 8); the
    -- thread's two columns are two rows of the panel, its rows lane / 4
    -- modulo 8 one 16-byte chunk; res_pp: the residual's value first)
    local function one(q)
      local a = fill("($ct *)(hb + mi * (GEMM_BNL * 128) + (ni * 8 + n2 + $q) * 128 + (((c0 + h) ^ (n2 + $q)) << 4))",
        { ct = ct, q = q })
      local v = "x[mi * 4 + h * 2 + " .. q .. "]"
      if not pres then return kg.store(spec, P.dt, a, "0", v) end
      return fill("{ $ct *const rp = $a; $ct o[1]; $o $st }", { ct = ct, a = a, o = kg.store(spec, P.dt, "o", "0", v),
        st = kg.store(spec, P.dt, "rp", "0", kg.load(spec, P.dt, "rp", "0") .. " + " .. kg.load(spec, P.dt, "o", "0")) })
    end
    tput = "            " .. one(0) .. "\n            " .. one(1)
  elseif tst then
    local a = "hb + (ni >> 3) * (BM * 128) + (mi * 64 + h * 8) * 128 + (((ni & 7) ^ l8) << 4)"
    tput = fill(pres and [[
            {
              $h2 *const rp = ($h2 *)($a);
              const float2 rr = $f2(*rp), oo = $f2($pk(x[mi * 4 + h * 2], x[mi * 4 + h * 2 + 1]));
              *rp = $pk(rr.x + oo.x, rr.y + oo.y);
            }]] or "            *($h2 *)($a) = $pk(x[mi * 4 + h * 2], x[mi * 4 + h * 2 + 1]);",
      { h2 = h2, pk = pk, a = a, f2 = P.dt == "bf16" and "__bfloat1622float2" or "__half22float2" })
  end
  local put = mf and fill([[
            $s0
            $s1]], { s0 = kg.store(spec, P.dt, "hp", "ni * 8 * GEMM_HS + mi * 64 + h * 8", "x[mi * 4 + h * 2]"),
                     s1 = kg.store(spec, P.dt, "hp", "(ni * 8 + 1) * GEMM_HS + mi * 64 + h * 8",
                       "x[mi * 4 + h * 2 + 1]") }) or
    fill("            *($h2 *)&hp[(mi * 64 + h * 8) * GEMM_HS + ni * 8] = $pk(x[mi * 4 + h * 2], x[mi * 4 + h * 2 + 1]);",
      { h2 = h2, pk = pk })
  if gate then
    put = put .. "\n" .. fill([[
            $s0
            $s1]], { s0 = kg.store(spec, P.dt, "hp", "(GEMM_BNL + ni * 8) * GEMM_HS + mi * 64 + h * 8",
                       "g[mi * 4 + h * 2]"),
                     s1 = kg.store(spec, P.dt, "hp", "(GEMM_BNL + ni * 8 + 1) * GEMM_HS + mi * 64 + h * 8",
                       "g[mi * 4 + h * 2 + 1]") })
  end
  local base = mf and "(wn * GEMM_WTNL + (lane & 3) * 2) * GEMM_HS + GEMM_ROW(0) + (lane >> 2)" or
    "(GEMM_ROW(0) + (lane >> 2)) * GEMM_HS + wn * GEMM_WTNL + (lane & 3) * 2"
  -- the copy-out: run e of 8 outputs along the contiguous axis
  local walk = mf and "const int ri0 = e % (BM / 8) * 8, nl0 = e / (BM / 8);" or
    "const int ri0 = e / (GEMM_BNL / 8), nl0 = e % (GEMM_BNL / 8) * 8;"
  local toff = mf and "nl0 * GEMM_HS + ri0" or "ri0 * GEMM_HS + nl0"
  -- (gated: a run of columns n < C is the residual half, (x + round(o)) *
  -- scale to out; the rest is skip's, stored as it is; a run never
  -- straddles C, vec_epi)
  local gated = P.epi == "gated"
  -- runs a thread per pass of the copy-out: 4, or with one residual every
  -- run of the thread's up to 16, so that all their 16-byte loads are in
  -- flight at once (4 at a time left the copy-out waiting a memory latency
  -- a pass: a residual cost a 49152 x 1024, K = 512 GEMM 33 us on the
  -- H200, performance.md attempt 30); the accumulators are dead by then
  local U = "4"
  if P.res and not gate then
    U = "GEMM_RU"
    ctdef = ctdef .. "\n#define GEMM_RU0 (BM * GEMM_BNL / 8 / GEMM_NT)" ..
      "\n#define GEMM_RU (GEMM_RU0 > 16 ? 16 : GEMM_RU0 < 4 ? 4 : GEMM_RU0)"
  end
  local rload, radd, rdecl = "", "", P.res and ", rv[" .. U .. "]" or ""
  if gate and not P.res then
    -- (conv_cond_gate: the halves as they are, gated in pairs)
    rdecl = ", fv[4]"
    rload = fill([[
        fv[u] = make_uint4(0u, 0u, 0u, 0u);
        if (e < BM * GEMM_BNL / 8)
          fv[u] = *(const uint4 *)(($ct *)gemm_ct + GEMM_BNL * GEMM_HS + $toff);
]], { ct = ct, toff = toff })
    radd = "          {\n" .. gated_pairs(spec, P.dt, "ov[u]", "fv[u]", "zq") .. "            ov[u] = zq;\n          }\n"
  elseif gate then
    -- (the filter half's run from the tile, the residual's runs of both
    -- halves; each half rounded as the model's sum is, then gated in pairs)
    rdecl = ", rv[4], fv[4], rf[4]"
    rload = fill([[
        rv[u] = fv[u] = rf[u] = make_uint4(0u, 0u, 0u, 0u);
        if (e < BM * GEMM_BNL / 8)
          fv[u] = *(const uint4 *)(($ct *)gemm_ct + GEMM_BNL * GEMM_HS + $toff);
        if (e < BM * GEMM_BNL / 8 && mb < GEMM_M && nb < GEMM_N) {
          rv[u] = *(const uint4 *)($r + ($a));
          rf[u] = *(const uint4 *)($r + ($af));
        }
]], { ct = ct, toff = toff, r = P.res.arg.cname, a = addr(P.res, "z", "mb", "nb"),
      af = addr(P.res, "z", "mb", "(nb + GEMM_N)") })
    local function sum(o, r) return kg.load(spec, P.dt, r, "j") .. " + " .. kg.load(spec, P.dt, o, "j") end
    radd = fill([[
          {
            const $ct *xo = (const $ct *)&ov[u], *xr = (const $ct *)&rv[u];
            const $ct *fo = (const $ct *)&fv[u], *fr = (const $ct *)&rf[u];
            __align__(16) $ct pk_g[8];
            __align__(16) $ct pk_f[8];
            #pragma unroll
            for (int j = 0; j < 8; j++) {
              $sg
              $sf
            }
            const uint4 hg = *(const uint4 *)pk_g, hf = *(const uint4 *)pk_f;
$pairs            ov[u] = zq;
          }
]], { ct = ct, sg = kg.store(spec, P.dt, "pk_g", "j", sum("xo", "xr")),
      sf = kg.store(spec, P.dt, "pk_f", "j", sum("fo", "fr")),
      pairs = gated_pairs(spec, P.dt, "hg", "hf", "zq") })
  elseif P.res then
    if tres then
      -- (load=tmares: the run from its 64 columns' ring slot, the chunk
      -- rc = nl0 / 64 of the K tiles after the tile's last; zero past the
      -- residual's edges)
      rload = fill([[
        rv[u] = make_uint4(0u, 0u, 0u, 0u);
        if (e < BM * GEMM_BNL / 8)
          rv[u] = *(const uint4 *)(gemm_as + (it + (unsigned)GEMM_KT + (unsigned)(nl0 / 64)) % STAGES * (BM * BK) +
                                   $roff);
]], { roff = mf and "nl0 % 64 * BM + ri0" or "ri0 * 64 + nl0 % 64" })
    else
      rload = fill([[
        rv[u] = make_uint4(0u, 0u, 0u, 0u);
        if (e < BM * GEMM_BNL / 8 && mb < GEMM_M && nb < $rn)
          rv[u] = *(const uint4 *)($r + ($a));
]], { r = P.res.arg.cname, a = addr(P.res, "z", "mb", "nb"), rn = gated and lit(P.C) or "GEMM_N" })
    end
    local v = kg.load(spec, P.dt, "xr", "j") .. " + " .. kg.load(spec, P.dt, "xo", "j")
    if gated then v = "(" .. v .. ") * " .. kg.float(P.scale) end
    radd = fill([[
          $open
            const $ct *xo = (const $ct *)&ov[u], *xr = (const $ct *)&rv[u];
            __align__(16) $ct pk_o[8];
            #pragma unroll
            for (int j = 0; j < 8; j++) $st
            ov[u] = *(const uint4 *)pk_o;
          }
]], { ct = ct, st = kg.store(spec, P.dt, "pk_o", "j", v), open = gated and "if (nb < " .. lit(P.C) .. ") {" or "{" })
  end
  local store = fill("*(uint4 *)($o + ($a)) = ov[u];", { o = P.out.arg.cname, a = addr(P.out, "z", "mb", "nb") })
  if gated then
    store = fill("if (nb < $C) $st\n          else *(uint4 *)($s + ($a)) = ov[u];", {
      C = lit(P.C), st = store, s = P.skip.arg.cname, a = addr(P.skip, "z", "mb", "(nb - " .. lit(P.C) .. ")") })
  end
  -- the values of each column group, computed and put in the tile (decl:
  -- the thread's base address there)
  -- (ln=fold: fr_r and fr_m, the rstd and rstd * mean of the thread's
  -- rows, come from its consumer's K loop: fold_stats)
  local function staging(decl, pt)
    return "    {\n" .. decl .. fill([[
      #pragma unroll
      for (int ni = 0; ni < GEMM_NIL; ni++) {
$body        #pragma unroll
        for (int mi = 0; mi < GEMM_MI; mi++)
          #pragma unroll
          for (int h = 0; h < 2; h++) {
$put
          }
      }
    }
]], { body = body, put = pt })
  end
  local epi = kg.line() .. "\n" .. fill([[
    GEMM_CSYNC();
$staging    GEMM_CSYNC();
$rwait    #pragma unroll 1
    for (int e0 = tid; e0 < BM * GEMM_BNL / 8; e0 += $U * GEMM_NT) {
      uint4 ov[$U]$rdecl;
      #pragma unroll
      for (int u = 0; u < $U; u++) {
        const int e = e0 + u * GEMM_NT;
        $walk
        const long mb = m0 + ri0, nb = n0 + nl0;
        (void)mb; (void)nb;
        if (e < BM * GEMM_BNL / 8)
          ov[u] = *(const uint4 *)(($ct *)gemm_ct + $toff);
$rload      }
      #pragma unroll
      for (int u = 0; u < $U; u++) {
        const int e = e0 + u * GEMM_NT;
        $walk
        const long mb = m0 + ri0, nb = n0 + nl0;
        if (e < BM * GEMM_BNL / 8 && mb < GEMM_M && nb < GEMM_N) {
$radd          $store
        }
      }
    }
$rfree]], { staging = staging(fill("      $ct *const hp = ($ct *)gemm_ct + $base;\n", { ct = ct, base = base }), put),
      ct = ct, walk = walk, toff = toff, U = U,
      rdecl = rdecl, rload = rload, radd = radd, store = store,
      -- (load=tmares: the residual's chunks have landed in their slots,
      -- which the consumers hand back once the copy-out has read them)
      rwait = tres and [[
    #pragma unroll
    for (int rc = 0; rc < GEMM_BNL / 64; rc++) {
      const unsigned q = it + (unsigned)GEMM_KT + (unsigned)rc;
      kg_mb_wait(&gemm_full[q % STAGES], (q / STAGES) & 1u);
    }
]] or "",
      rfree = tres and [[
    #pragma unroll
    for (int rc = 0; rc < GEMM_BNL / 64; rc++)
      kg_mb_arrive(&gemm_empty[(it + (unsigned)GEMM_KT + (unsigned)rc) % STAGES]);
]] or "" })
  if tst then
    -- the TMA store: the tile's generic stores are fenced for the async
    -- proxy, then one thread stores each panel.  sched=pp: the consumer's
    -- tile is its own and the next tile's epilogue first waits for the
    -- store to have read it; ws: the tile lies over the stages, which the
    -- producer refills after the block's barrier, so the wait is at once
    local c, np, psz = panel_coords(P, P.out)
    -- (res_pp: the residual's copy into the tile waited for the last
    -- store's read; the consumer hands the tile back once this one's has)
    epi = "#if GEMM_TST\n" .. kg.line() .. "\n" .. fill([[
$free$staging    kg_wg_fence_async();
    GEMM_CSYNC();
    if (tid == 0) {
      #pragma unroll
      for (int p = 0; p < $np; p++)
        kg_tma_st$n(&kg_tmO, (const unsigned char *)gemm_ct + p * ($psz), $c);
      kg_bulk_commit();
$now    }
]], { staging = staging(mf and [[
      const int l8 = lane >> 2, n2 = (lane & 3) * 2, c0 = (GEMM_ROW(0) & 63) >> 3;
      unsigned char *const hb = (unsigned char *)gemm_ct + (GEMM_ROW(0) >> 6) * (GEMM_BNL * 128) + l8 * 2;
]] or [[
      const int l8 = lane >> 2;
      unsigned char *const hb = (unsigned char *)gemm_ct +
        (wn * (GEMM_WTNL / 64) * BM + GEMM_ROW(0) + l8) * 128 + (lane & 3) * 4;
]], tput), n = #c, c = table.concat(c, ", "),
      np = np, psz = psz,
      free = pres and "    kg_mb_wait(&gemm_rfull[cw], ((it / (unsigned)GEMM_KT) >> 1) & 1u);\n" or
        "    if (tid == 0) kg_bulk_wait_read<0>();\n    GEMM_CSYNC();\n",
      now = pres and "      kg_bulk_wait_read<0>();\n      kg_mb_arrive(&gemm_rfree[cw]);\n" or
        design.sched == "pp" and "" or "      kg_bulk_wait_read<0>();\n" }) .. "#else\n" .. epi .. "#endif\n"
  end
  return epi, ctdef, colpre, cvecs
end

-- the K loop of a_desc with a prologue: the prologue of K tile ct + 1 runs
-- while the MMAs of tile ct are in flight.  Per K tile: issue its MMAs;
-- retire the previous tile's (then every warpgroup is done with its stage,
-- which is refilled); wait for tile ct + 1 to land, apply the prologue to
-- it in place, retire tile ct's MMAs (as sched=ws does, wgmma_ws_consumer)
-- and fence it for the async proxy.
local wgmma_xf_loop = [[
    for (int s = 0; s < STAGES - 1; s++) {
      if (s < GEMM_KT) {
        $ct *as_w = gemm_as + s * $ast;
        $ct *bs_w = gemm_bs + s * BN * BK;
        $ct *fs_w = gemm_fs + s * GEMM_FST;
        const long k0 = (long)s * BK;
        (void)as_w; (void)fs_w; (void)k0;
$early
$loadb
      }
      kg_gemm_commit();
    }
    kg_gemm_wait<STAGES - 2>();
    __syncthreads();
    {
      const long kx = 0;
      $ct *as_x = gemm_as, *fs_x = gemm_fs;
      (void)fs_x;
$xf
    }
    kg_wg_fence_async();
    __syncthreads();
    int cs = 0;
    for (long ct = 0; ct < GEMM_KT; ct++) {
      const $ct *as_c = gemm_as + cs * $ast;
      const $ct *bs_c = gemm_bs + cs * BN * BK;
      const int ns = cs + 1 == STAGES ? 0 : cs + 1, ws = cs == 0 ? STAGES - 1 : cs - 1;
$mmas
      kg_wg_wait<1>();
      kg_gemm_wait<STAGES - 3>();
      __syncthreads();
      if (ct + STAGES - 1 < GEMM_KT) {
        $ct *as_w = gemm_as + ws * $ast;
        $ct *bs_w = gemm_bs + ws * BN * BK;
        $ct *fs_w = gemm_fs + ws * GEMM_FST;
        const long k0 = (ct + STAGES - 1) * BK;
        (void)as_w; (void)fs_w; (void)k0;
$early
$loadb
      }
      kg_gemm_commit();
      if (ct + 1 < GEMM_KT) {
        const long kx = ct + 1;
        $ct *as_x = gemm_as + ns * $ast, *fs_x = gemm_fs + ns * GEMM_FST;
        (void)fs_x;
$xf
        kg_wg_wait<0>();
        kg_wg_fence_async();
      }
      __syncthreads();
      cs = ns;
    }
]]

-- the K loop of the other A operands: per K tile, wait for it to land,
-- issue the loads of tile ct + STAGES - 2 and the MMAs of tile ct
local wgmma_loop = [[
    for (int s = 0; s < STAGES - 2; s++) {
      if (s < GEMM_KT) {
        $ct *as_w = gemm_as + s * $ast;
        $ct *bs_w = gemm_bs + s * BN * BK;
        const long k0 = (long)s * BK;
        (void)as_w; (void)k0;
$early
$loadb
$late
      }
      kg_gemm_commit();
    }
    int cs = 0, ws = STAGES - 2;
    for (long ct = 0; ct < GEMM_KT; ct++) {
      kg_gemm_wait<STAGES - 3>();
      kg_wg_fence_async();
      __syncthreads();
      const long it = ct + STAGES - 2;
      const $ct *as_c = gemm_as + cs * $ast;
      const $ct *bs_c = gemm_bs + cs * BN * BK;
      $ct *as_w = gemm_as + ws * $ast;
      $ct *bs_w = gemm_bs + ws * BN * BK;
      (void)as_w;
$fold
      if (it < GEMM_KT) {
        const long k0 = it * BK;
        (void)k0;
$early
$loadb
      }
$mmas
      if (it < GEMM_KT) {
        const long k0 = it * BK;
        (void)k0;
$late
      }
      kg_gemm_commit();
      kg_wg_wait<$inflight>();
      cs = cs + 1 == STAGES ? 0 : cs + 1;
      ws = ws + 1 == STAGES ? 0 : ws + 1;
    }
]]

-- sched=ws: the block's last warpgroup is a producer, the others consume.
-- Stage s of the ring has two mbarriers: full[s] (128 producer arrivals:
-- cp.async's own arrive-on when the raw tile needs nothing more, else a
-- plain arrive once the producer has run the prologue over the landed
-- tile) and empty[s] (every consumer thread, once the MMAs that read the
-- stage have retired).  Use u of stage s waits for phase u of full[s]; the
-- producer's use u waits for phase u - 1 of empty[s] (parity trick: the
-- first wait passes on a fresh barrier).  Neither side ever waits at a
-- block barrier inside the K loop.
local ws_helpers = [[
static __device__ __forceinline__ void kg_mb_init(unsigned long long *b, int n)
{
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n"
               :: "r"((unsigned)__cvta_generic_to_shared(b)), "r"(n) : "memory");
}
static __device__ __forceinline__ void kg_mb_arrive(unsigned long long *b)
{
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n"
               :: "r"((unsigned)__cvta_generic_to_shared(b)) : "memory");
}
/* arrives on b once every earlier cp.async of this thread has landed */
static __device__ __forceinline__ void kg_mb_cp_arrive(unsigned long long *b)
{
  asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];\n"
               :: "r"((unsigned)__cvta_generic_to_shared(b)) : "memory");
}
static __device__ __forceinline__ void kg_mb_wait(unsigned long long *b, unsigned parity)
{
  asm volatile("{\n.reg .pred p;\nKG_MB_WAIT:\n"
               "mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n"
               "@!p bra KG_MB_WAIT;\n}\n"
               :: "r"((unsigned)__cvta_generic_to_shared(b)), "r"(parity) : "memory");
}
static __device__ __forceinline__ void kg_bar_sync(int id, int n)
{
  asm volatile("bar.sync %0, %1;\n" :: "r"(id), "r"(n) : "memory");
}
]]

-- load=tma: the tensor maps (kernel parameters after the tensors, by value
-- in the constant bank), the full barrier's expected bytes, and a copy of a
-- box at coordinates (innermost first) completing on an mbarrier: kg_tma2
-- and kg_tma3 (K, rows, then a half or a batch entry), and kg_tma2m,
-- kg_tma3m (mcast) multicast to the blocks of
-- mask with the barrier at the same offset in each; with mcast, a
-- release on both blocks' barriers, an acquire of the peer's releases and
-- the pair's barrier
local function tma_helpers(mcast)
  local t = { [[
struct __align__(64) kg_tmap { unsigned long long q[16]; };
static __device__ __forceinline__ void kg_mb_expect(unsigned long long *b, unsigned bytes)
{
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n"
               :: "r"((unsigned)__cvta_generic_to_shared(b)), "r"(bytes) : "memory");
}
]] }
  -- n coordinates c0.. as parameters, asm operands %2.. and their inputs
  local function coords(n)
    local cs, regs, ops = {}, {}, {}
    for i = 0, n - 1 do
      cs[#cs + 1] = "int c" .. i
      regs[#regs + 1] = "%" .. (i + 2)
      ops[#ops + 1] = '"r"(c' .. i .. ')'
    end
    return cs, regs, ops
  end
  local function copy(n, m)
    local cs, regs, ops = coords(n)
    return fill([[
static __device__ __forceinline__ void kg_tma$n$m(void *dst, const kg_tmap *m, $cs,
                                               unsigned long long *b$mask)
{
  asm volatile("cp.async.bulk.tensor.$dim.shared::cluster.global.mbarrier::complete_tx::bytes$mc"
               " [%0], [%1, {$regs}], [%$bar]$mreg;\n"
               :: "r"((unsigned)__cvta_generic_to_shared(dst)), "l"((unsigned long long)m),
                  $ops, "r"((unsigned)__cvta_generic_to_shared(b))$mop : "memory");
}
]], { n = n, dim = n .. "d", m = m and "m" or "", cs = table.concat(cs, ", "), regs = table.concat(regs, ", "),
      ops = table.concat(ops, ", "), bar = n + 2, mask = m and ", unsigned short mask" or "",
      mc = m and ".multicast::cluster" or "", mreg = m and ", %" .. (n + 3) or "",
      mop = m and ', "h"(mask)' or "" })
  end
  for n = 2, 4 do t[#t + 1] = copy(n, false) end
  -- (tma_store: a box from shared memory to the tensor at coordinates c,
  -- in bulk groups; wait_read: until the groups have read shared memory)
  for n = 2, 4 do
    local cs, regs, ops = coords(n)
    t[#t + 1] = fill([[
static __device__ __forceinline__ void kg_tma_st$n(const kg_tmap *m, const void *src, $cs)
{
  asm volatile("cp.async.bulk.tensor.$dim.global.shared::cta.bulk_group [%0, {$regs}], [%1];\n"
               :: "l"((unsigned long long)m), "r"((unsigned)__cvta_generic_to_shared(src)), $ops
               : "memory");
}
]], { n = n, dim = n .. "d", cs = table.concat(cs, ", "), regs = table.concat(regs, ", "),
      ops = table.concat(ops, ", ") })
  end
  t[#t + 1] = [[
static __device__ __forceinline__ void kg_bulk_commit(void)
{
  asm volatile("cp.async.bulk.commit_group;\n" ::: "memory");
}
template <int N> static __device__ __forceinline__ void kg_bulk_wait_read(void)
{
  asm volatile("cp.async.bulk.wait_group.read %0;\n" :: "n"(N) : "memory");
}
template <int N> static __device__ __forceinline__ void kg_bulk_wait(void)
{
  asm volatile("cp.async.bulk.wait_group %0;\n" :: "n"(N) : "memory");
}
]]
  if mcast then
    t[#t + 1] = copy(2, true)
    t[#t + 1] = copy(3, true)
    t[#t + 1] = [[
/* a warp's release of a stage on both blocks' barriers: lane 0 arrives
   for the warp once every lane is past its MMAs' wait.  The arrive keeps
   the default release.cta: the MMAs' reads of the stage are complete at
   their wait, and a release.cluster fences memory on each arrive (Nsight
   Compute: membar stalls, the kernel 40% slower) */
static __device__ __forceinline__ void kg_mb_arrive2(unsigned long long *b)
{
  const unsigned a = (unsigned)__cvta_generic_to_shared(b);
  __syncwarp();
  if ((threadIdx.x & 31) == 0) {
    #pragma unroll
    for (unsigned r = 0; r < 2; r++) {
      unsigned ra;
      asm volatile("mapa.shared::cluster.u32 %0, %1, %2;\n" : "=r"(ra) : "r"(a), "r"(r));
      asm volatile("mbarrier.arrive.shared::cluster.b64 _, [%0];\n" :: "r"(ra) : "memory");
    }
  }
}
static __device__ __forceinline__ void kg_mb_wait_cl(unsigned long long *b, unsigned parity)
{
  asm volatile("{\n.reg .pred p;\nKG_MB_WAITC:\n"
               "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%0], %1;\n"
               "@!p bra KG_MB_WAITC;\n}\n"
               :: "r"((unsigned)__cvta_generic_to_shared(b)), "r"(parity) : "memory");
}
static __device__ __forceinline__ void kg_cl_sync(void)
{
  asm volatile("barrier.cluster.arrive.release.aligned;\n"
               "barrier.cluster.wait.acquire.aligned;\n" ::: "memory");
}
]]
  end
  return table.concat(t)
end

-- load=tma: thread 0's copies of stage ws (K tile k0): the bytes the full
-- barrier expects, A's tile where A goes by TMA, B's tile (gemm_glu: each
-- group of GEMM_GLU_G rows from both halves of the weight)
local function tma_issue(P, design, ta, only)
  -- (load=panel: the stage's copies are A's alone (only = "a"), and B's
  -- panel is copied once, a K tile at a time, on its own barrier (only =
  -- "b"))
  local bar = only == "b" and "gemm_bfull" or "gemm_full[ws]"
  -- (mc: multicast to both blocks of the pair)
  local function call(dst, map, mp, row, half, mc, k)
    local c = { k or "(int)k0", "(int)(" .. row .. ")" }
    if half then c[#c + 1] = half end
    if #mp.zd == 1 and mp.zd[1][2] ~= 0 then c[#c + 1] = "(int)z" end
    return string.format("kg_tma%d%s(%s, &%s, %s, &%s%s);", #c, mc and "m" or "", dst,
      map, table.concat(c, ", "), bar, mc and ", (unsigned short)3" or "")
  end
  -- (where every copy is a TMA copy thread 0 alone runs the loop)
  local bytes = only == "a" and "BM * BK" or only == "b" and "BN * BK" or
    (ta and "BM * BK + " or "") .. "BN * BK"
  local t = { ta and "        {" or "        if (tid == 0) {" }
  -- (convt: a copy a panel of 64 rows, (t shifted by the K tile's tap,
  -- channel, b), or (channel, t, b) where x is channel-last (K-major
  -- chunks); ind: the lines' indent)
  local function convt_copies(A, ind)
    t[#t + 1] = ind .. string.format("const int tap = (int)(k0 / %d);", A.Cig)
    t[#t + 1] = ind .. "#pragma unroll"
    t[#t + 1] = ind .. "for (int p = 0; p < BM / 64; p++) {"
    t[#t + 1] = ind .. "  const long r = m0 + 64 * p;"
    local tc = string.format("(int)(r %% %s) + tap * %d - %d", lit(A.Tout), A.dil, A.pad)
    local cc = string.format("(int)(k0 %% %d)", A.Cig)
    if A.sxC == 1 then tc, cc = cc, tc end
    t[#t + 1] = ind .. string.format("  kg_tma3(as_w + p * 4096, &kg_tmA, %s, %s, (int)(r / %s), &gemm_full[ws]);",
      tc, cc, lit(A.Tout))
    t[#t + 1] = ind .. "}"
  end
  -- (an M-major A of map mp: a copy a panel of 64 rows, its (t, k, b) or
  -- (m, k), through tensor map `map` at K offset k)
  local function m_panels(mp, map, k, ind)
    local c = #mp.rd == 2 and { "(int)(r % " .. lit(mp.rd[2][1]) .. ")", k, "(int)(r / " ..
      lit(mp.rd[2][1]) .. ")" } or { "(int)r", k }
    if #mp.zd == 1 and mp.zd[1][2] ~= 0 then c[#c + 1] = "(int)z" end
    t[#t + 1] = ind .. "#pragma unroll"
    t[#t + 1] = ind .. "for (int p = 0; p < BM / 64; p++) {"
    t[#t + 1] = ind .. "  const long r = m0 + 64 * p;"
    t[#t + 1] = ind .. string.format("  kg_tma%d(as_w + p * 4096, &%s, %s, &gemm_full[ws]);", #c, map,
      table.concat(c, ", "))
    t[#t + 1] = ind .. "}"
  end
  -- (gemm_glu's B: each group's value and gate rows from the two halves)
  local function glu_b(map, mp, k, ind)
    t[#t + 1] = ind .. "#pragma unroll"
    t[#t + 1] = ind .. "for (int g = 0; g < BN / GEMM_GLU_G; g++) {"
    t[#t + 1] = ind .. "  " .. call("bs_w + g * GEMM_GLU_G * BK", map, mp, "n0 + g * (GEMM_GLU_G / 2)", "0", false, k)
    t[#t + 1] = ind .. "  " .. call("bs_w + (g * GEMM_GLU_G + GEMM_GLU_G / 2) * BK", map, mp,
      "n0 + g * (GEMM_GLU_G / 2)", "1", false, k)
    t[#t + 1] = ind .. "}"
  end
  if only ~= "b" then
    t[#t + 1] = "          kg_mb_expect(&gemm_full[ws], (unsigned)((" .. bytes .. ") * sizeof(*bs_w)));"
  end
  if only == "b" then ta = false end
  if ta and P.A.kind == "ksplit" then
    -- (conv_cond_gate, ksplit_tma: below K1 the dilated conv's boxes of x
    -- (as convt's) and its weight's rows, past it the condition's M-major
    -- panels and wc's rows, from the second pair of maps)
    local A, ind = P.A, "            "
    local k = "(int)(k0 - " .. lit(A.K1) .. ")"
    t[#t + 1] = "          if (k0 < " .. lit(A.K1) .. ") {"
    convt_copies(A.lo, ind)
    glu_b("kg_tmB", P.B.lo.mp, nil, ind)
    t[#t + 1] = "          } else {"
    m_panels(A.hi.mp, "kg_tmA2", k, ind)
    glu_b("kg_tmB2", P.B.hi.mp, k, ind)
    t[#t + 1] = "          }"
    t[#t + 1] = "        }"
    return table.concat(t, "\n")
  elseif ta and P.A.kind == "convt" then
    convt_copies(P.A, "          ")
  elseif ta and tma_m(P, design) then
    m_panels(P.A.mp, "kg_tmA", "(int)k0", "          ")
  elseif ta then
    t[#t + 1] = "          " .. call("as_w", "kg_tmA", operand(P, "A", design).mp, "m0")
  end
  if only == "a" then
    t[#t + 1] = "        }"
    return table.concat(t, "\n")
  end
  if design.load == "mcast" then
    -- this block's half of B, into both blocks: gemm_glu's value rows
    -- (rank 0) or gate rows (rank 1) of each group, else rows GEMM_MCR of 2
    local function mcall(dst, row, half) return call(dst, "kg_tmB", P.B.mp, row, half, true) end
    if P.glu then
      t[#t + 1] = "          #pragma unroll"
      t[#t + 1] = "          for (int g = 0; g < BN / GEMM_GLU_G; g++)"
      t[#t + 1] = "            " .. mcall("bs_w + (g * GEMM_GLU_G + GEMM_MCR * (GEMM_GLU_G / 2)) * BK",
        "n0 + g * (GEMM_GLU_G / 2)", "GEMM_MCR")
    else
      t[#t + 1] = "          " .. mcall("bs_w + GEMM_MCR * (BN / 2) * BK", "n0 + GEMM_MCR * (BN / 2)")
    end
  elseif P.glu then
    glu_b("kg_tmB", P.B.mp, nil, "          ")
  else
    t[#t + 1] = "          " .. call("bs_w", "kg_tmB", P.B.mp, "n0")
  end
  t[#t + 1] = "        }"
  return table.concat(t, "\n")
end

-- sched=ws, the producer's K loop: wait for stage ws to be free, issue
-- its cp.async; without a prologue, cp.async itself arrives on full[ws].
-- With one, the producer keeps GEMM_LA tiles in flight and runs the
-- prologue over the oldest once all 128 threads' copies of it have landed.
local wgmma_ws_producer = [[
      for (long kt = 0; kt < GEMM_KT; kt++) {
        const unsigned q = it + (unsigned)kt;
        const int ws = (int)(q % STAGES);
        kg_mb_wait(&gemm_empty[ws], ((q / STAGES) & 1u) ^ 1u);
        $ct *as_w = gemm_as + ws * $ast;
        $ct *bs_w = gemm_bs + ws * BN * BK;
$fsw        const long k0 = kt * BK;
        (void)as_w; (void)k0;
$early
$loadb
$landed
      }
$drain
]]

local wgmma_ws_xform = [[
        {
          kg_bar_sync(3, 128);
          const int xs = (int)((it + (unsigned)kx) % STAGES);
          $ct *as_x = gemm_as + xs * $ast;
$rawwait$fsx$xf
          kg_wg_fence_async();
          kg_mb_arrive(&gemm_full[xs]);
        }
]]

-- sched=ws and pp, the consumers' K loop: wait for tile kt, issue its
-- MMAs, and hand back the stage of tile kt - 1 once its MMAs have retired.
-- Where A is read along M (wgmma's transposed A: the 1x1 and dilated convs
-- over [B, C, T], gated's prologue) or its stages are stored by the
-- producer (xf), $retire waits for tile kt's MMAs too before tile kt + 1's
-- are issued.  Without it, on the H200, MMAs issued while the previous
-- tile's were in flight read stale A when the ring was tight: wrong results
-- in every STAGES=3 config of the dilated conv and of gated's prologue, in
-- the 1x1 convs at BM = 128 with one consumer warpgroup (STAGES=3 under ws,
-- every ring under pp), and in some STAGES=4 configs -- by TMA, cp.async or
-- the producer's fenced stores alike.  A along K never showed it.
-- Retiring first, or a pause before the next MMAs, made them right; a guard
-- between stages or a pause in the producer did not (docs/performance.md,
-- attempt 22).
local wgmma_ws_consumer = [[
    for (long kt = 0; kt < GEMM_KT; kt++) {
      const unsigned q = it + (unsigned)kt;
      const int cs = (int)(q % STAGES);
      kg_mb_wait(&gemm_full[cs], (q / STAGES) & 1u);
$fence      const $ct *as_c = gemm_as + cs * $ast;
      const $ct *bs_c = gemm_bs + cs * BN * BK;
$mmas
      kg_wg_wait<1>();
      if (kt > 0) kg_mb_arrive(&gemm_empty[(q - 1u) % STAGES]);
$retire    }
$turn    kg_wg_wait<0>();
    kg_mb_arrive(&gemm_empty[(it + (unsigned)GEMM_KT - 1u) % STAGES]);
]]

-- the macros of a_desc's second buffer and, for the conv, its geometry
-- (conv_geom) and the shift of its pass: 16 bytes from the 32 of lo, hi
-- starting e halves in
local function conv_defs(P, design)
  local two = a_two(P, design)
  if P.A.kind ~= "conv" or not two then
    return "#define GEMM_FST " .. (two and "(BM * BK)" or "0") .. "\n"
  end
  local g = conv_geom(P)
  return kg.line() .. "\n" .. fill([[
#define GEMM_CV_KS $KS
#define GEMM_CV_DIL $dil
#define GEMM_CV_PADA $pada
#define GEMM_CV_SH0 $sh0
#define GEMM_CV_NCH $nch
#define GEMM_CV_W ((BM + $shmax + 7) / 8 * 8 + 8)
#define GEMM_FST ((GEMM_CV_NCH * GEMM_CV_W + 63) / 64 * 64)   /* 128-byte stages (TMA) */
static __device__ __forceinline__ uint4 kg_cv_shift(uint4 lo, uint4 hi, int e)
{
  const bool a = (e & 2) != 0, b = (e & 4) != 0;
  const unsigned sel = (e & 1) ? 0x5432u : 0x3210u;
  const unsigned u0 = a ? lo.y : lo.x, u1 = a ? lo.z : lo.y, u2 = a ? lo.w : lo.z,
                 u3 = a ? hi.x : lo.w, u4 = a ? hi.y : hi.x, u5 = a ? hi.z : hi.y,
                 u6 = a ? hi.w : hi.z;
  const unsigned v0 = b ? u2 : u0, v1 = b ? u3 : u1, v2 = b ? u4 : u2, v3 = b ? u5 : u3,
                 v4 = b ? u6 : u4;
  return make_uint4(__byte_perm(v0, v1, sel), __byte_perm(v1, v2, sel),
                    __byte_perm(v2, v3, sel), __byte_perm(v3, v4, sel));
}
]], g)
end

-- ln=fold under sched=pp (load=panel): a block's tiles share its column
-- tile, so B's panel is scaled by gamma once, in place, when it lands, by
-- both consumer warpgroups (GEMM_FPC threads a column, each 8 / GEMM_FPC
-- chunks of each K tile, so a quarter-warp's 16-byte reads hit 8 distinct
-- chunks), and the column sums go to gemm_cw and gemm_cb (the bias
-- added); the async proxy is fenced before the MMAs read the panel
local function fold_panel(spec, P)
  local bias = P.bias and colload(spec, P, P.bias, "n") or "0.0f"
  return kg.line() .. "\n" .. fill([[
    if (GEMM_PB < GEMM_TILES) {
      kg_mb_wait(&gemm_bfull, 0u);
      const long z = 0;
      const int fj = (int)threadIdx.x / GEMM_FPC, fpart = (int)threadIdx.x % GEMM_FPC;
      float cw = 0.0f, cb = 0.0f;
      (void)z;
      for (long kt = 0; kt < GEMM_KT; kt++) {
        #pragma unroll
        for (int i = 0; i < 8 / GEMM_FPC; i++) {
          const int c = fpart * (8 / GEMM_FPC) + i;
$chunk
        }
      }
      #pragma unroll
      for (int o = 1; o < GEMM_FPC; o <<= 1) {
        cw += __shfl_xor_sync(0xffffffffu, cw, o);
        cb += __shfl_xor_sync(0xffffffffu, cb, o);
      }
      if (fpart == 0) {
        const long n = GEMM_PB % GEMM_TILES_N * GEMM_BNL + fj;
        gemm_cw[fj] = cw;
        gemm_cb[fj] = cb + (n < GEMM_N ? $bias : 0.0f);
      }
      kg_wg_fence_async();
      kg_bar_sync(7, 2 * GEMM_NT);
    }
]], { bias = bias, chunk = fold_chunk_swz(spec, P, "(gemm_bs + kt * BN * BK)", "fj", "kt * BK + c * 8") })
end

-- ln=fold under sched=pp: each consumer sums its tile's rows (GEMM_FP
-- threads a row, 8 / GEMM_FP chunks each, four partial sums against the
-- add's latency) from each landed A stage while that stage's MMAs run;
-- after the K loop the row's rstd and rstd * mean go to gemm_fr and
-- gemm_fm for the epilogue (a row past M sums zeros)
local function fold_stats(spec, P)
  local dt = P.dt
  local ct = kg.ctype(spec, dt)
  local init = [[
      const int fr_row = tid / GEMM_FP, fr_p = tid % GEMM_FP;
      float f_s[4] = { 0.0f, 0.0f, 0.0f, 0.0f }, f_q[4] = { 0.0f, 0.0f, 0.0f, 0.0f };
      float fr_r[GEMM_MI][2], fr_m[GEMM_MI][2];
]]
  local step = fill([[
      #pragma unroll
      for (int i = 0; i < 8 / GEMM_FP; i++) {
        const int c = fr_p * (8 / GEMM_FP) + i;
        const uint4 raw = *(const uint4 *)(as_c + fr_row * 64 + ((c ^ (fr_row & 7)) << 3));
        const $ct *h = (const $ct *)&raw;
        #pragma unroll
        for (int u = 0; u < 8; u++) {
          const float xv = $lda;
          f_s[u & 3] += xv;
          f_q[u & 3] = fmaf(xv, xv, f_q[u & 3]);
        }
      }
]], { ct = ct, lda = kg.load(spec, dt, "h", "u") })
  local done = fill([[
      {
        float s = (f_s[0] + f_s[1]) + (f_s[2] + f_s[3]), q = (f_q[0] + f_q[1]) + (f_q[2] + f_q[3]);
        #pragma unroll
        for (int o = 1; o < GEMM_FP; o <<= 1) {
          s += __shfl_xor_sync(0xffffffffu, s, o);
          q += __shfl_xor_sync(0xffffffffu, q, o);
        }
        const float mu = s / (float)GEMM_K;
        const float rstd = $rstd;
        if (fr_p == 0) {
          gemm_fr[cw][fr_row] = rstd;
          gemm_fm[cw][fr_row] = rstd * mu;
        }
        GEMM_CSYNC();
        /* the statistics of the thread's accumulator rows */
        #pragma unroll
        for (int mi = 0; mi < GEMM_MI; mi++)
          #pragma unroll
          for (int h = 0; h < 2; h++) {
            const int r = GEMM_ROW(mi) + (lane >> 2) + h * 8;
            fr_r[mi][h] = gemm_fr[cw][r];
            fr_m[mi][h] = gemm_fm[cw][r];
          }
      }
]], { rstd = fold_rstd(spec, P, "q") })
  return init, step, done
end

local function emit_wgmma(spec, P, design)
  local dt = P.dt
  local ct = kg.ctype(spec, dt)
  local atr = a_trans(P, design)
  local ast = atr and "BK * GEMM_BMP" or "BM * GEMM_BKP"
  local adecl, afetch, aput = "", "", ""
  local function sta(ri, ki, v) return kg.store(spec, dt, "as_w", ri .. " * GEMM_BKP + " .. ki, v) end
  -- the A loads: `early` goes before the stage's MMAs are issued (global
  -- loads, cp.async), `late` after them (shared-memory stores)
  local ss = a_ss(P, design)
  local mode = a_desc(P, design)
  local early, late, xf = nil, nil, ""
  local ta = tma_a(P, design) or tma_m(P, design)
  local tres = res_tma(spec, P, design)
  local pres = res_pp(P, design)
  if ss then
    ast = "BM * BK"
    early, late = ta and "" or loader_swz(spec, P, design, "A"), ""
  elseif mode then
    ast = "BM * BK"
    early, xf = adesc_code(spec, P, design, mode)
    if tma_m(P, design) then early = "" end
    if design.sched == "ws" and P.A.kind == "ln" then
      xf = ws_ln_xform(spec, P)
      if ws_ln_gb(P) then early = early .. ws_ln_gb_load(spec, P) end
    end
    late = ""
  elseif atr then
    adecl, afetch, aput = loader_trans(spec, P, "as_w")
    early, late = afetch, aput
  else
    early, late = "", loader(spec, P, "A", design, sta, "as_w")
  end
  local tma = design.load ~= "cp"
  local mc = design.load == "mcast"
  local panel = design.load == "panel"
  local loadb = tma and tma_issue(P, design, ta, panel and "a" or nil) or loader_swz(spec, P, design, "B")
  -- ln=fold: the pass over the landed stage (row sums of A, B scaled by
  -- gamma in place, column sums), through the swizzle; B was written by
  -- generic stores, so the async proxy is fenced again
  local fold = ""
  if design.ln == "fold" then
    fold = fold_pass_swz(spec, P)
    fold = "      {\n        $ct *as_f = gemm_as + cs * $ast, *bs_f = gemm_bs + cs * BN * BK;\n" ..
      "        const long k0 = ct * BK;\n" .. fold .. "        kg_wg_fence_async();\n        __syncthreads();\n      }\n"
  end
  -- the MMAs of one stage: from A's registers (then the registers of
  -- stage ct must stay untouched until its MMAs retire: wait for all
  -- before the next ldmatrix) or from A's swizzled tile (one group may stay
  -- in flight).  A k16 step is 32 bytes into a K-major tile's rows, or 16
  -- rows of 128 bytes (2048 bytes, 128 in the descriptor) into an M-major
  -- panel.
  local mmas
  if ss and P.A.kind == "ksplit" then
    -- (ksplit_tma: K tiles below K1 K-major where x is channel-last, the
    -- rest M-major panels; all M-major where x is channel-first)
    local kmaj = P.A.lo.sxC == 1
    local function tile(mma, step)
      return fill([[
          #pragma unroll
          for (int mi = 0; mi < GEMM_MI; mi++) {
            const unsigned long long ad = kg_wg_desc(as_c + GEMM_ROW64(mi) * BK);
            #pragma unroll
            for (int j = 0; j < BK / 16; j++) $mma(&acc[mi][0][0], ad + $step * j, bd + 2 * j);
          }
]], { mma = mma, step = step })
    end
    mmas = fill([[
      kg_wg_fence();
      {
        const unsigned long long bd = kg_wg_desc(bs_c + wn * GEMM_WTN * BK);
        if (kt * BK < $K1) {
$lo        } else {
$hi        }
      }
      kg_wg_commit();]], { K1 = lit(P.A.K1), lo = tile(kmaj and "kg_wg_mma" or "kg_wg_mmat", kmaj and "2" or "128"),
                            hi = tile("kg_wg_mmat", "128") })
  elseif ss or mode then
    mmas = fill([[
      kg_wg_fence();
      {
        const unsigned long long bd = kg_wg_desc(bs_c + wn * GEMM_WTN * BK);
        #pragma unroll
        for (int mi = 0; mi < GEMM_MI; mi++) {
          const unsigned long long ad = kg_wg_desc(as_c + GEMM_ROW64(mi) * BK);
          #pragma unroll
          for (int j = 0; j < BK / 16; j++) kg_wg_mma(&acc[mi][0][0], ad + $astep * j, bd + 2 * j);
        }
      }
      kg_wg_commit();]], { astep = mode == "m" and "128" or "2" })
  else
    mmas = fill([[
      unsigned af[BK / 16][GEMM_MI][4];
      #pragma unroll
      for (int ks = 0; ks < BK; ks += 16)
        #pragma unroll
        for (int mi = 0; mi < GEMM_MI; mi++)
          $afrag
      kg_wg_fence();
      {
        const unsigned long long bd = kg_wg_desc(bs_c + wn * GEMM_WTN * BK);
        #pragma unroll
        for (int j = 0; j < BK / 16; j++)
          #pragma unroll
          for (int mi = 0; mi < GEMM_MI; mi++)
            kg_wg_mma(&acc[mi][0][0], af[j][mi], bd + 2 * j);
      }
      kg_wg_commit();]], { afrag = afrag(atr, "af[ks / 16][mi]") })
  end
  local epi, ctdef, colpre, cvecs
  if reg_epi(P, design) then
    epi, ctdef, colpre, cvecs = reg_epilogue(spec, P, design)
  else
    epi, ctdef, colpre = staged_epilogue(spec, P, design)
  end
  colpre = colpre or ""
  -- the register epilogue's bias starts in the accumulators (gemm_glu's
  -- value half and gate half each their own), one add less an output
  -- (load=panel: a block's tiles share their column tile, so the column
  -- vectors load once, before its first tile, unless they have a batch axis)
  local cpre1
  if panel and colpre ~= "" then
    local batched = false
    for _, v in ipairs({ P.bias or false, P.cscale or false }) do
      if v and #v.zd > 0 and v.zd[1][2] ~= 0 then batched = true end
    end
    if not batched then cpre1 = colpre:gsub("n0 %+", "n0k +") end
  end
  local acczero = acc_zero
  if reg_epi(P, design) and bias_acc(P, design) then
    acczero = acc_zero:gsub("= 0%.0f;", P.glu and
      "= ni < GEMM_NIL ? rc_b[ni][q & 1] : rc_g[ni - GEMM_NIL][q & 1];" or "= rc_b[ni][q & 1];")
  end
  local pp = design.sched == "pp"
  local ws = design.sched == "ws" or pp
  local pins = [[
    #pragma unroll
    for (int mi = 0; mi < GEMM_MI; mi++)
      #pragma unroll
      for (int ni = 0; ni < GEMM_NI; ni++)
        #pragma unroll
        for (int q = 0; q < 4; q++) kg_wg_pin(acc[mi][ni][q]);
]]
  -- sched=ws: the producer warpgroup first (after the barriers are set
  -- up), then the consumers; each role walks the batch on its own and both
  -- meet at a block-wide barrier after each batch entry, because the
  -- epilogue's f32 tile lies over the stages
  -- the kernels' opening: the dynamic shared memory and the stage rings
  local smem_head = fill([[
  extern __shared__ __align__(1024) unsigned char kg_gemm_smem[];
  /* the swizzled B tiles need 1024-byte alignment, which the static
     shared memory's padding gives the dynamic tile */
  if ((unsigned)__cvta_generic_to_shared(kg_gemm_smem) & 1023u) __trap();
  $ct *gemm_bs = ($ct *)kg_gemm_smem;
  $ct *gemm_as = gemm_bs + $nb * BN * BK;
]], { ct = ct, nb = panel and "GEMM_KT" or "STAGES" })
  -- (ws: LNC > 1 blocks of a cluster take a row tile's adjacent column
  -- tiles; each computes the statistics of BM / LNC rows and copies the
  -- others' from its peers' shared memory)
  local lnstats = design.ln == "prepass" and
    ln_stats_warp(spec, P, design, "(int)threadIdx.x", "GEMM_NT + 128", ws) ..
    (ws and [[
#if LNC > 1
      kg_ln_cluster_sync();
      for (int i = (int)threadIdx.x; i < BM; i += GEMM_NT + 128)
        if (i / GEMM_LNR != (int)GEMM_LNRANK) {
          gemm_mean[i] = kg_ln_ld_peer(kg_ln_peer(&gemm_mean[i], (unsigned)(i / GEMM_LNR)));
          gemm_rstd[i] = kg_ln_ld_peer(kg_ln_peer(&gemm_rstd[i], (unsigned)(i / GEMM_LNR)));
        }
      kg_ln_cluster_sync();
#endif
]] or "") ..
    "      kg_bar_sync(4, GEMM_NT + 128);\n" or ""
  -- load=tma: the tensor maps after the tensors (launch()'s order)
  local cvt = conv_tma(P, design)
  local params = kg.params(spec) ..
    (ta and ",\n    const __grid_constant__ kg_tmap kg_tmA" or "") ..
    (tma and ",\n    const __grid_constant__ kg_tmap kg_tmB" or "") ..
    (P.A.kind == "ksplit" and tma and
      ",\n    const __grid_constant__ kg_tmap kg_tmA2,\n    const __grid_constant__ kg_tmap kg_tmB2" or "") ..
    (cvt and ",\n    const __grid_constant__ kg_tmap kg_tmX" or "") ..
    (tma_store(P, design) and "\n#if GEMM_TST\n    , const __grid_constant__ kg_tmap kg_tmO\n#endif\n   " or "") ..
    ((tres or pres) and ",\n    const __grid_constant__ kg_tmap kg_tmR" or "")
  -- mcast: the pair's cluster, and its barrier before either block exits
  -- (the other may still copy into it or release its stages)
  local mccl = mc and " GEMM_MCCL" or ""
  local clend = mc and "  kg_cl_sync();\n" or ""
  -- (mcast: a stage is free once both blocks' consumers release it)
  local wgmma_ws_producer = mc and
    wgmma_ws_producer:gsub("kg_mb_wait%(&gemm_empty", "kg_mb_wait_cl(&gemm_empty") or wgmma_ws_producer
  local wgmma_ws_consumer = mc and
    wgmma_ws_consumer:gsub("kg_mb_arrive%(&gemm_empty", "kg_mb_arrive2(&gemm_empty") or wgmma_ws_consumer
  -- (load=panel: B's K tile kt of the panel, not of the stage)
  if panel then
    wgmma_ws_consumer = wgmma_ws_consumer:gsub("gemm_bs %+ cs %* BN %* BK", "gemm_bs + kt * BN * BK")
  end
  local function kernel_ws()
    local body
    local two = a_two(P, design)
    -- (A's stages stored by the producer, or read along M, or the
    -- tap-major conv's shifted boxes even along K: the consumers retire
    -- each tile's MMAs before the next tile's, wgmma_ws_consumer; the
    -- channel-last conv was wrong at STAGES = 3 and 4 without it on the
    -- H200, docs/performance.md attempt 26)
    local retire = (xf ~= "" or a_desc(P, design) == "m" or P.A.kind == "convt" or P.A.kind == "ksplit") and
      "      kg_wg_wait<0>();\n" or ""
    local fsw = two and "        " .. ct .. " *fs_w = gemm_fs + ws * GEMM_FST;\n" or ""
    if xf ~= "" then
      local xform = fill(wgmma_ws_xform, { ct = ct, ast = ast, xf = xf,
        fsx = two and "          " .. ct .. " *fs_x = gemm_fs + xs * GEMM_FST;\n" or "",
        -- (the conv's raw rows by TMA: their own barrier)
        rawwait = cvt and "          kg_mb_wait(&gemm_raw[xs], ((it + (unsigned)kx) / STAGES) & 1u);\n" or "" })
      -- LayerNorm: the row statistics, by the whole block (the consumers
      -- have nothing to do before the first pass over a tile, which needs
      -- them), once the first GEMM_LA tiles' copies are in flight
      local stats = ""
      if design.ln == "prepass" then
        stats = "        if (kt + 1 == (GEMM_KT < GEMM_LA ? GEMM_KT : GEMM_LA)) {\n" .. lnstats ..
          "        }\n"
      end
      body = fill(wgmma_ws_producer, { ct = ct, ast = ast, early = early, loadb = loadb, fsw = fsw,
        landed = "        kg_gemm_commit();\n" .. stats .. "        if (kt >= GEMM_LA) {\n" ..
          "          kg_gemm_wait<GEMM_LA>();\n          const long kx = kt - GEMM_LA;\n" ..
          xform .. "        }",
        drain = "      kg_gemm_wait<0>();\n" ..
          "      for (long kx = GEMM_KT > GEMM_LA ? GEMM_KT - GEMM_LA : 0; kx < GEMM_KT; kx++)\n" ..
          xform })
    else
      -- (sched=pp: the ring runs on across the block's tiles, and the last
      -- copies are waited for once, after them; a prologue's lagging pass
      -- above still drains at the end of each tile)
      -- res_pp: the tile's residual into its consumer's tile, once that
      -- consumer has freed it, at the K tile after the ring's first
      -- STAGES: that K tile's slot was freed by the tile's first MMAs, so
      -- the consumer is past its last epilogue (or at the tile's last K
      -- tile, where the tile has fewer)
      local rcopy = ""
      if pres then
        local c, np, psz = panel_coords(P, P.res)
        rcopy = fill([[

#if GEMM_TST
        if (kt == (GEMM_KT - 1 < STAGES ? GEMM_KT - 1 : STAGES)) {
          const unsigned pj = it / (unsigned)GEMM_KT, pc = pj & 1u;
          kg_mb_wait(&gemm_rfree[pc], ((pj >> 1) & 1u) ^ 1u);
          kg_mb_expect(&gemm_rfull[pc], (unsigned)(BM * GEMM_BNL * sizeof($ct)));
          unsigned char *const rt = (unsigned char *)(gemm_ep + pc * GEMM_EST);
          #pragma unroll
          for (int p = 0; p < $np; p++)
            kg_tma$n(rt + p * ($psz), &kg_tmR, $c, &gemm_rfull[pc]);
        }
#endif]], { ct = ct, n = #c, c = table.concat(c, ", "), np = np, psz = psz })
      end
      body = fill(wgmma_ws_producer, { ct = ct, ast = ast, early = early, loadb = loadb, fsw = fsw,
        landed = (ta and "" or "        kg_mb_cp_arrive(&gemm_full[ws]);") .. rcopy,
        drain = pp and "" or "      kg_gemm_commit();\n      kg_gemm_wait<0>();" })
      -- load=panel: B's K panel of the block's column tile, once, before
      -- the first tile's A (the tiles of a block share their column tile)
      if panel then
        body = fill([[
      if (t == GEMM_PB) {
        kg_mb_expect(&gemm_bfull, (unsigned)(GEMM_KT * BN * BK * sizeof($ct)));
        for (long kt = 0; kt < GEMM_KT; kt++) {
          $ct *bs_w = gemm_bs + kt * BN * BK;
          const long k0 = kt * BK;
$copy
        }
      }
]], { ct = ct, copy = tma_issue(P, design, ta, "b") }) .. body
      end
      -- load=tmares: after the tile's K tiles, its residual's 64-column
      -- chunks into the A parts of the next ring slots, as K tiles (ta:
      -- thread 0 walks the ring)
      if tres then
        local _, c = res_tmap(spec, P)
        body = body .. fill([[
      for (int rc = 0; rc < GEMM_BNL / 64; rc++) {
        const unsigned q = it + (unsigned)GEMM_KT + (unsigned)rc;
        const int ws = (int)(q % STAGES);
        kg_mb_wait(&gemm_empty[ws], ((q / STAGES) & 1u) ^ 1u);
        kg_mb_expect(&gemm_full[ws], (unsigned)(BM * 64 * sizeof($ct)));
        kg_tma$n(gemm_as + ws * $ast, &kg_tmR, $c, &gemm_full[ws]);
      }
]], { ct = ct, ast = ast, n = #c, c = table.concat(c, ", ") })
      end
      -- load=tma with every copy a TMA copy: thread 0 alone walks the ring
      if ta then body = "      if (tid == 0) {\n" .. body .. "\n      }" end
    end
    -- each stage's full barrier: 128 producer arrivals (cp.async's own, or
    -- the prologue's pass), plus thread 0's expect_tx where B goes by TMA;
    -- thread 0's alone where every copy does
    local nfull = (ta and xf == "") and "1" or tma and "129" or "128"
    -- the consumers' proxy fence after a stage's full wait: cp.async and
    -- the producer's pass write the stage through the generic proxy, which
    -- wgmma's async reads must be ordered after; where every copy is a TMA
    -- copy the stage is written by the async proxy alone, and the barrier's
    -- completion is all the ordering needed (the fence cost a
    -- MEMBAR.ALL.CTA a K tile, docs/performance.md attempt 33)
    local fence = nfull == "1" and "" or "      kg_wg_fence_async();\n"
    -- the stage rings' mbarriers (sched=pp: and the consumers' turns), and
    -- setmaxnreg's hand-over from the producer to two or more consumers
    local function mb_init(turns)
      return "  if (threadIdx.x == 0) {\n    for (int s = 0; s < STAGES; s++) {\n" ..
        "      kg_mb_init(&gemm_full[s], " .. nfull .. ");\n      kg_mb_init(&gemm_empty[s], " ..
        (mc and "2 * (GEMM_NT / 32)" or "GEMM_NT") .. ");\n" ..
        (cvt and "      kg_mb_init(&gemm_raw[s], 1);\n" or "") .. "    }\n" ..
        (turns and "    kg_mb_init(&gemm_turn[0], GEMM_NT);\n    kg_mb_init(&gemm_turn[1], GEMM_NT);\n" or "") ..
        (panel and "    kg_mb_init(&gemm_bfull, 1);\n" or "") ..
        (pres and "    for (int c = 0; c < 2; c++) {\n      kg_mb_init(&gemm_rfull[c], 1);\n" ..
          "      kg_mb_init(&gemm_rfree[c], 1);\n    }\n" or "") ..
        -- (TMA copies complete on the barriers: their initialisation is
        -- made visible to the async proxy)
        (tma and "    asm volatile(\"fence.mbarrier_init.release.cluster;\\n\" ::: \"memory\");\n" or "") ..
        -- (mcast: the pair's barriers are set up before either block's
        -- copies or releases reach the other)
        "  }\n" .. (mc and "  kg_cl_sync();\n" or "  __syncthreads();\n")
    end
    local function maxnreg(op, n)
      return "#if GEMM_NC > 1\n    asm volatile(\"setmaxnreg." .. op .. ".sync.aligned.u32 %0;\\n\" :: \"n\"(" ..
        n .. "));\n#endif\n"
    end
    if pp then
      local ptile
      -- (ln=fold: the panel scaled once, the row sums in the K loop)
      local fst = design.ln == "fold" and { fold_stats(spec, P) } or nil
      if panel then
        -- (load=panel: column tiles fastest, so that a block, whose grid
        -- stride is a whole number of rows of tiles, keeps its column tile)
        ptile = [[
      const long z = t / (GEMM_TILES_M * GEMM_TILES_N);
      const long m0 = t / GEMM_TILES_N % GEMM_TILES_M * BM;
      const long n0 = t % GEMM_TILES_N * GEMM_BNL;
]]
      elseif mc then
        ptile = "      const long z = t / (GEMM_TILES_MP * GEMM_TILES_N);\n" ..
          fill(tile_mc, { pt = "t % (GEMM_TILES_MP * GEMM_TILES_N)" })
      else
        ptile = "      const long z = t / (GEMM_TILES_M * GEMM_TILES_N);\n" ..
          tile_code:gsub("KG_BID%(0%)", "(t %% (GEMM_TILES_M * GEMM_TILES_N))")
      end
      -- the column vectors a tile ahead (not load=panel, whose block keeps
      -- its column tile): each consumer keeps its tile's in shared memory
      -- and loads its next tile's during this tile's epilogue, so that a
      -- tile's set-up reads them at once instead of waiting on their loads
      -- under the other consumer's K loop (docs/performance.md, attempt 24)
      local cvdecl, cvfirst = "", ""
      if not panel and cvecs and #cvecs > 0 then
        local reads, loads, puts = {}, {}, {}
        for k, v in ipairs(cvecs) do
          reads[#reads + 1] = fill([[
    float rc_$w[GEMM_NIL][2];
    #pragma unroll
    for (int ni = 0; ni < GEMM_NIL; ni++)
      #pragma unroll
      for (int q = 0; q < 2; q++) rc_$w[ni][q] = gemm_cvs[cw][$k][wn * GEMM_WTNL + ni * 8 + (lane & 3) * 2 + q];
]], { w = v.w, k = k - 1 })
          loads[#loads + 1] = fill("          cv_n[$k][c] = tn < GEMM_TILES && i < GEMM_BNL && n < GEMM_N ? $ld : 0.0f;\n",
            { k = k - 1, ld = v.ld })
          puts[#puts + 1] = fill("      if (i < GEMM_BNL) gemm_cvs[cw][$k][i] = cv_n[$k][c];\n", { k = k - 1 })
        end
        colpre = table.concat(reads)
        cvdecl = fill("  __shared__ float gemm_cvs[2][$nv][GEMM_BNL];   /* each consumer's column vectors */\n" ..
          "#define GEMM_CVT ((GEMM_BNL + GEMM_NT - 1) / GEMM_NT)   /* a thread's share of them */\n", { nv = #cvecs })
        -- (the vectors of tile tn into cv_n, zero past the last tile)
        local function cvload(tn) return fill([[
    float cv_n[$nv][GEMM_CVT];
    {
      const long tn = $tn;
      {
        const long t = tn < GEMM_TILES ? tn : 0;
$ptile        #pragma unroll
        for (int c = 0; c < GEMM_CVT; c++) {
          const int i = tid + c * GEMM_NT;
          const long n = n0 + i;
$loads        }
      }
    }
]], { nv = #cvecs, tn = tn, ptile = ptile, loads = table.concat(loads) }) end
        local cvput = fill([[
    #pragma unroll
    for (int c = 0; c < GEMM_CVT; c++) {
      const int i = tid + c * GEMM_NT;
$puts    }
]], { puts = table.concat(puts) })
        -- (the loads before the epilogue's first barrier, the stores after its
        -- staging and before the barrier that ends it, which orders them
        -- before the next tile's reads; that tile's readers passed this
        -- epilogue's first barrier, so every read of the old values is done.
        -- That barrier opens the TMA store or the copy-out loop: each of the
        -- epilogue's variants has one of the two, and every variant must
        -- store the vectors)
        local put = 0
        for _, at in ipairs({ "    kg_wg_fence_async();\n    GEMM_CSYNC();\n    if (tid == 0) {",
                              "    GEMM_CSYNC();\n    #pragma unroll 1\n" }) do
          local i = epi:find(at, 1, true)
          if i then epi, put = epi:sub(1, i - 1) .. cvput .. epi:sub(i), put + 1 end
        end
        if put == 0 then kg.fail("gemm: pp column vectors: no barrier ends the epilogue") end
        -- (the consumer's first tile's before its loop)
        cvfirst = "    {\n" .. cvload("GEMM_PB + cw * GEMM_PG") .. cvput .. "    }\n    GEMM_CSYNC();\n"
        epi = cvload("t + 2 * GEMM_PG") .. epi
      end
      return kg.line() .. "\n" .. fill([[
KG_KERNEL void __launch_bounds__(2 * GEMM_NT + 128, 1)$mccl $name(
    $params)
{
  KG_NO_GRID_DEP();
$smem$fsdecl  float *const gemm_ep = (float *)(gemm_as + STAGES * ($ast + GEMM_FST));
  __shared__ __align__(8) unsigned long long gemm_full[STAGES], gemm_empty[STAGES], gemm_turn[2]$raw$bfull$rbar;
$fsh$cvdecl$mbinit  if ((int)threadIdx.x >= 2 * GEMM_NT) {
$dec    const int tid = (int)threadIdx.x - 2 * GEMM_NT;
    unsigned it = 0;   /* K tiles through the ring so far */
    for (long t = GEMM_PB; t < GEMM_TILES; t += GEMM_PG) {
$ptile$producer
      it += (unsigned)GEMM_KT;
    }
    kg_gemm_commit();
    kg_gemm_wait<0>();
  } else {
$inc    const int cw = __shfl_sync(0xffffffffu, (int)threadIdx.x / GEMM_NT, 0);   /* this warpgroup's turn: tiles cw, cw + 2, ... */
    const int tid = (int)threadIdx.x % GEMM_NT, lane = tid & 31, warp = __shfl_sync(0xffffffffu, tid >> 5, 0), wq = warp & 3;
    const int wm = 0, wn = 0;
    float *const gemm_ct = gemm_ep + cw * GEMM_EST;
    unsigned it = (unsigned)cw * (unsigned)GEMM_KT, turn = 0;
$cvfirst$bwait    for (long t = GEMM_PB + cw * GEMM_PG; t < GEMM_TILES; t += 2 * GEMM_PG) {
$ptile$colpre$acczero
$consumer$pins$epi
      it += 2u * (unsigned)GEMM_KT;
    }
$cend  }
$clend}
]], { name = spec.kernel, params = params, ct = ct, ast = ast, ptile = ptile, mccl = mccl, clend = clend,
        dec = maxnreg("dec", "GEMM_PREG"), inc = maxnreg("inc", "GEMM_CREG"), mbinit = mb_init(true),
        raw = cvt and ", gemm_raw[STAGES]" or "", bfull = panel and ", gemm_bfull" or "",
        rbar = pres and ", gemm_rfull[2], gemm_rfree[2]" or "",
        bwait = (cpre1 and "    const long n0k = GEMM_PB % GEMM_TILES_N * GEMM_BNL;   /* load=panel: the block's column tile */\n" ..
            cpre1 or "") ..
          (fst and fold_panel(spec, P) or
            panel and "    if (GEMM_PB + cw * GEMM_PG < GEMM_TILES) kg_mb_wait(&gemm_bfull, 0u);\n" or ""),
        fsh = fst and "  __shared__ float gemm_cw[BN], gemm_cb[BN], gemm_fr[2][BM], gemm_fm[2][BM];  /* ln=fold */\n" or "",
        cvdecl = cvdecl, cvfirst = cvfirst,
        producer = body, acczero = acczero, pins = pins, epi = epi, smem = smem_head,
        colpre = cpre1 and "" or colpre,
        -- (tma_store: the last store has read the tile before the block exits)
        cend = tma_store(P, design) and "#if GEMM_TST\n    if (tid == 0) kg_bulk_wait<0>();\n#endif\n" or "",
        fsdecl = "  " .. ct .. " *gemm_fs = gemm_as + STAGES * " .. ast .. ";\n  (void)gemm_fs;\n",
        consumer = (fst and fst[1] or "") ..
          "      kg_mb_wait(&gemm_turn[cw], (turn & 1u) ^ (cw == 0 ? 1u : 0u));\n" ..
          fill(wgmma_ws_consumer, { ct = ct, ast = ast, fence = fence, mmas = mmas .. (fst and "\n" .. fst[2] or ""),
            retire = retire, turn = "    kg_mb_arrive(&gemm_turn[cw ^ 1]);\n    turn++;\n" }) .. (fst and fst[3] or "") })
    end
    return kg.line() .. "\n" .. fill([[
KG_KERNEL void __launch_bounds__(GEMM_NT + 128, MINB) GEMM_LNCL$mccl $name(
    $params)
{
  KG_GRID_DEP();
$smem$fsdecl  float *gemm_ct = (float *)gemm_bs;
  __shared__ __align__(8) unsigned long long gemm_full[STAGES], gemm_empty[STAGES]$raw;
$lnsh$tile$mbinit  unsigned it = 0;   /* K tiles through the ring so far */
  if ((int)threadIdx.x >= GEMM_NT) {
$dec    const int tid = (int)threadIdx.x - GEMM_NT;
    for (long z = KG_BID(2); z < GEMM_Z; z += KG_GDIM(2)) {
$producer
      it += $kstep;
      kg_bar_sync(2, GEMM_NT + 128);
    }
  } else {
$inc    const int tid = (int)threadIdx.x, lane = tid & 31, warp = __shfl_sync(0xffffffffu, tid >> 5, 0), wq = warp & 3;
    const int wm = (warp >> 2) % WM, wn = (warp >> 2) / WM;
    for (long z = KG_BID(2); z < GEMM_Z; z += KG_GDIM(2)) {
$colpre$acczero
$lnstats$consumer$pins$epi
      it += $kstep;
$tmafence      kg_bar_sync(2, GEMM_NT + 128);
    }
  }
$clend}
]], { name = spec.kernel, params = params, ct = ct, ast = ast, mccl = mccl, clend = clend,
      tile = design.ln == "prepass" and tile_lnc or mc and fill(tile_mc, { pt = "KG_BID(0) >> 1" }) or tile_code,
      dec = maxnreg("dec", "GEMM_PREG"), inc = maxnreg("inc", "GEMM_CREG"), mbinit = mb_init(false),
      raw = cvt and ", gemm_raw[STAGES]" or "",
      -- (load=tmares: the residual's chunks are K tiles of the ring too)
      kstep = tres and "(unsigned)(GEMM_KT + GEMM_BNL / 64)" or "(unsigned)GEMM_KT",
      producer = body, acczero = acczero, pins = pins, epi = epi, smem = smem_head,
      lnstats = lnstats, colpre = colpre,
      -- (the epilogue's f32 tile lies over the stages, which the next
      -- batch entry's TMA copies refill: order its accesses first)
      tmafence = tma and "      kg_wg_fence_async();\n" or "",
      lnsh = design.ln == "prepass" and "  __shared__ float gemm_mean[BM], gemm_rstd[BM];\n" ..
        (ws_ln_gb(P) and "  __shared__ __align__(16) " .. ct .. " gemm_gb[STAGES * 128];  /* ws_ln_gb */\n" or "") or "",
      fsdecl = two and "  " .. ct .. " *gemm_fs = gemm_as + STAGES * " .. ast ..
        ";  /* gated's filter half, the conv's raw rows */\n" or "",
      consumer = fill(wgmma_ws_consumer, { ct = ct, ast = ast, fence = fence, mmas = mmas, retire = retire,
        turn = "" }) })
  end
  local src = {
    kg.prelude(spec),
    common(spec, P, design),
    kg.line() .. "\n" .. [[
#define KG_ARCH_SPECIFIC 1
#define GEMM_NT (128 * WM * WN)
#define GEMM_WTM (BM / WM)
#define GEMM_WTN (BN / WN)
#define GEMM_ROW64(mi) (wm * GEMM_WTM + (mi) * 64)
#define GEMM_ROW(mi) (GEMM_ROW64(mi) + wq * 16)
#define GEMM_MI (GEMM_WTM / 64)
#define GEMM_NI (GEMM_WTN / 8)
#define GEMM_BKP (BK + 8)
#define GEMM_BMP (BM + 8)
#define GEMM_MK 16
#define GEMM_TAI GEMM_CDIV(BK * (BM / 8), GEMM_NT)
#define GEMM_GLU_G GEMM_WTN
/* gemm_glu's B copy slot i of the ws/pp producer (GEMM_LT = 128): tile row
   (i) * 16 is output column GEMM_GLU_C(i), weight row GEMM_GLU_R(i) */
#define GEMM_GLU_I(i) ((i) * (GEMM_LT / 8))
#define GEMM_GLU_C(i) (GEMM_GLU_I(i) / GEMM_GLU_G * (GEMM_GLU_G / 2) + GEMM_GLU_I(i) % GEMM_GLU_G % (GEMM_GLU_G / 2))
#define GEMM_GLU_R(i) (GEMM_GLU_C(i) + (GEMM_GLU_I(i) % GEMM_GLU_G >= GEMM_GLU_G / 2 ? GEMM_N : 0L))
#define GEMM_KT GEMM_CDIV(GEMM_K, (long)BK)
#define GEMM_KP (GEMM_LT * 8 / BM)   /* k rows of an M-major panel a pass of GEMM_LT threads fills */
/* an M-major panel's element offset of the run of 8 rows mc at k row ki:
   64 rows a panel, chunk mc % 8 of row ki swizzled by ki % 8 */
#define GEMM_MP(mc, ki) (((mc) >> 3) * 4096 + (ki) * 64 + ((((mc) & 7) ^ ((ki) & 7)) << 3))
/* the staged epilogue's runs of 8 a thread takes per round (at most 4) */
#define GEMM_EU0 GEMM_CDIV(GEMM_EM * GEMM_BNL / 8, GEMM_NT)
#define GEMM_EU (GEMM_EU0 < 4 ? GEMM_EU0 : 4)
#if BM % (64 * WM) != 0 || BK != 64 || STAGES < 3
#error "wgmma needs 64-multiple warpgroup tiles, BK == 64 and STAGES >= 3"
#endif
]] .. (ws and [[
#define GEMM_LT 128
#define GEMM_LA (STAGES - 2)
]] .. (pp and [[
/* sched=pp: two consumer warpgroups on alternate tiles of a persistent
   block, each staging its epilogue in passes of 64 rows through its own
   f32 tile (barriers 5 and 6) */
#define GEMM_TILES (GEMM_TILES_M * GEMM_TILES_N * GEMM_Z)
#define GEMM_PB KG_BID(0)
#define GEMM_PG KG_GDIM(0)
#define GEMM_EM 64
#define GEMM_CSYNC() kg_bar_sync(5 + cw, GEMM_NT)
#define GEMM_NC 2
]] or [[
#define GEMM_EM BM
#define GEMM_CSYNC() kg_bar_sync(1, GEMM_NT)
#define GEMM_NC (WM * WN)
]]) .. [[
/* setmaxnreg (two or more consumer warpgroups): the block is compiled for
   GEMM_RALL registers a thread; the producer drops to GEMM_PREG and the
   consumers take what it leaves (templates/gemm.lua: ws_regs) */
#define GEMM_PREG ]] .. tostring(ws_preg(P, design)) .. [[

#define GEMM_RALL (65536 / (128 * (GEMM_NC + 1)) / 8 * 8)
#define GEMM_CREG0 ((GEMM_RALL + (GEMM_RALL - GEMM_PREG) / GEMM_NC) / 8 * 8)
#define GEMM_CREG (GEMM_CREG0 > 256 ? 256 : GEMM_CREG0)
/* LayerNorm: the clusters of LNC blocks sharing a row tile's statistics
   (tile_lnc); this block computes rows [GEMM_LNR0, GEMM_LNR1) */
#define GEMM_TILES_NL (GEMM_TILES_N / LNC)
#define GEMM_LNR (BM / LNC)
#define GEMM_LNRANK (KG_BID(0) % LNC)
#define GEMM_LNR0 ((int)GEMM_LNRANK * GEMM_LNR)
#define GEMM_LNR1 (GEMM_LNR0 + GEMM_LNR)
#if LNC > 1
#define GEMM_LNCL __cluster_dims__(LNC, 1, 1)
]] .. kg.cluster_helpers("kg_ln") .. [[
#else
#define GEMM_LNCL
#endif
]] or [[
#define GEMM_LT GEMM_NT
#define GEMM_EM BM
#define GEMM_CSYNC() __syncthreads()
]]) .. (mc and [[
/* load=mcast: blocks in pairs (a cluster) over pairs of row tiles; this
   block is rank GEMM_MCR; sched=pp walks pair tiles */
#define GEMM_MCR ((int)(KG_BID(0) & 1))
#define GEMM_TILES_MP GEMM_CDIV(GEMM_TILES_M, 2L)
#define GEMM_MCCL __cluster_dims__(2, 1, 1)
#undef GEMM_TILES
#undef GEMM_PB
#undef GEMM_PG
#define GEMM_TILES (GEMM_TILES_MP * GEMM_TILES_N * GEMM_Z)
#define GEMM_PB (KG_BID(0) >> 1)
#define GEMM_PG (KG_GDIM(0) >> 1)
]] or "") .. ((design.sched == "pp" and design.ln == "fold") and [[
/* ln=fold under pp: threads a row's sums, threads a column's sums of B's
   panel */
#define GEMM_FP (GEMM_NT / BM)
#define GEMM_FPC (2 * GEMM_NT / BN)
]] or "") .. conv_defs(P, design) .. ctdef .. "\n",
    mma_helpers(spec, P, design),
    wgmma_helpers(spec, P, ss or mode ~= nil, mode == "m") .. (ws and ws_helpers or "") ..
      (tma and tma_helpers(mc) or ""),
    ws and kernel_ws() or kg.line() .. "\n" .. fill([[
KG_KERNEL void __launch_bounds__(GEMM_NT, MINB) $name(
    $params)
{
  KG_GRID_DEP();
$smem  $ct *gemm_fs = gemm_as + STAGES * $ast;  /* gated's filter half, the conv's raw rows (a_desc) */
  float *gemm_ct = (float *)gemm_bs;
  (void)gemm_fs;
$lnsh
  const int tid = (int)threadIdx.x, lane = tid & 31, warp = tid >> 5, wq = warp & 3;
  const int wm = (warp >> 2) % WM, wn = (warp >> 2) / WM;
$tile
  for (long z = KG_BID(2); z < GEMM_Z; z += KG_GDIM(2)) {
$colpre$acczero
$lnstart
$adecl
$mainloop    kg_wg_wait<0>();
$pins$epi
    __syncthreads();
  }
}
]], { name = spec.kernel, params = kg.params(spec), ct = ct, lnsh = ln_shared(design),
      tile = tile_code, lnstart = ln_start(spec, P, design), adecl = adecl, acczero = acczero,
      ast = ast, pins = pins, smem = smem_head, colpre = colpre,
      mainloop = fill(xf ~= "" and wgmma_xf_loop or wgmma_loop, {
        ct = ct, ast = ast, early = early, late = late, loadb = loadb, mmas = mmas, xf = xf,
        inflight = (ss or mode) and "1" or "0", fold = fill(fold, { ct = ct, ast = ast }) }),
      epi = epi }),
  }
  return table.concat(src, "\n")
end

function T.emit(spec, design)
  local P = analyze(spec)
  if P.err then kg.fail("%s", P.err) end
  local emit = design.path == "mma" and emit_mma or design.path == "wgmma" and emit_wgmma or
    emit_simt
  -- 32-bit address arithmetic on the tensor-core paths where it cannot
  -- overflow (the simt path, which OpenCL shares, keeps 64-bit)
  I32 = design.path ~= "simt" and small(spec)
  local ok, src = pcall(emit, spec, P, design)
  I32 = false
  if not ok then error(src, 0) end
  return src
end

return T
