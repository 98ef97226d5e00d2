-- templates/rownorm.lua -- softmax, layernorm and rmsnorm over one axis.
--
-- The input x is seen as NROWS rows of N elements along the normalised axis
-- (spec.nodes[1].attrs.axis): a row's elements are N apart by that axis's
-- stride, so a row need not be the last axis and x may be any strided view.
-- TPR threads (a power of two) share one row and BLOCK / TPR rows share a
-- block: thread tid works on row blockIdx * (BLOCK / TPR) + tid / TPR and
-- visits the row's elements lane, lane + TPR, ... (lane = tid % TPR).  Per
-- row statistics are combined across the TPR threads with a tree in shared
-- memory (KG_SHARED, KG_BARRIER) or, on CUDA, with warp shuffles
-- (__shfl_xor_sync, then one shared-memory step across the warps of a row
-- when TPR > 32).  With TPR = 1 a thread owns a whole row; for a row that
-- is not the last axis consecutive threads then read consecutive memory.
--
-- Design knobs:
--   path = twopass  softmax: max, then sum of exp(x - max), then write;
--                   layernorm: mean, then the biased variance sum((x-mean)^2)/N;
--                   rmsnorm: mean of squares.  The row is read from global
--                   memory for every pass (the passes after the first hit
--                   the cache).
--          onepass  softmax online (running max and rescaled sum), layernorm
--                   with Welford's mean and M2 and Chan's merge; then one
--                   more pass writes.  (rmsnorm has nothing to fuse: pruned.)
--          regs     two passes over a copy of the row held in registers: the
--                   row is read from global memory once.  NPT = ceil(N / TPR)
--                   values per thread, at most 32.  On CUDA, where x and the
--                   result are contiguous along aligned rows and the row
--                   splits into whole 16-byte runs a thread (RN_VEC), each
--                   thread loads and stores runs of 8 halves (4 floats).
--          tile     for rows whose elements are strided (a transposed view,
--                   such as LayerNorm over C of a [B, C, T] tensor): the
--                   block's BLOCK / TPR rows are first staged in shared
--                   memory, loaded along whichever of the two axes is
--                   contiguous so the loads coalesce, then read from there
--                   twice (as twopass).  The tile keeps x's storage type
--                   (16-bit rows: twice the rows in the same bytes, longer
--                   runs per load); at most 48 KB.
--   xred = smem | shfl (CUDA only)
-- Tuning knobs: BLOCK threads per block, TPR threads per row.
--
-- All arithmetic is f32.  softmax of a row that is all -inf is NaN (as
-- PyTorch: exp(-inf - -inf)); a NaN anywhere in a row makes the row NaN.

local T = {
  name = "rownorm",
  backends = { "cuda", "opencl" },
  design = {
    path = { "twopass", "onepass", "regs", "tile" },
    xred = { "smem", "shfl" },
  },
  tuning = {
    BLOCK = { 32, 64, 128, 256, 512, 1024 },
    TPR = { 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024 },
  },
}

-- local helpers -------------------------------------------------------------

local np2, argof, offs, contig = kg.np2, kg.argof, kg.offsets, kg.contiguous
local split_row = kg.split_row

-- the row geometry of the kernel
local function geometry(spec)
  local n = spec.nodes[1]
  local x = argof(spec, n.args[1])
  local y = argof(spec, n.results[1])
  if y then y = contig(y) else y = kg.result_arg(spec, n) end
  local axis = n.attrs.axis + 1
  local N = x.shape[axis]
  -- sx: the stride between a row's elements (0 for a single element)
  return { node = n, x = x, y = y, axis = axis, N = N, rows = x.numel // N,
           sx = N == 1 and 0 or x.strides[axis],
           sy = (not y or N == 1) and 0 or y.strides[axis] }
end

-- regs on CUDA: can a row move 16 bytes a thread (RN_V values)?  x and y
-- contiguous along the row, every row's start a multiple of RN_V; whether
-- the row splits into whole runs, N % (TPR * RN_V) == 0, is left to the
-- preprocessor (TPR is a -D).  Returns RN_V or nil.
local function vec16(spec, g)
  if spec.backend ~= "cuda" or g.N == 1 or g.sx ~= 1 or g.sy ~= 1 then return nil end
  if g.x.dtype ~= g.y.dtype then return nil end
  local V = g.x.dtype == "f32" and 4 or 8
  for _, a in ipairs({ g.x, g.y }) do
    if a.offset % V ~= 0 then return nil end
    for i = 1, a.rank do
      if i ~= g.axis and a.shape[i] ~= 1 and a.strides[i] % V ~= 0 then return nil end
    end
  end
  return V
end

-- tile: do the results go back through the tile, leaving along the rows
-- (a result whose row elements are strided: a norm that writes the
-- transpose its reader wants, kg.result_arg)?
local function y_staged(g)
  return g.sy ~= 1 and g.N > 1 and g.y.dtype == g.x.dtype
end

-- block-wide combination of per-thread states ---------------------------------
--
-- vars: the state's float variables, e.g. { "m", "s" }; combine(b): C
-- statements merging the state b.<var> (here bv_<var>) into the thread's
-- own.  Every thread of a row ends with the same state (the row's first
-- lane's).  All threads of the block must run this code (no early exit).
local function reduction(spec, design, vars, combine, ind, ctype)
  ctype = ctype or "float"
  local L = {}
  local function add(s) L[#L + 1] = ind .. s end
  local b = {}
  for _, v in ipairs(vars) do b[v] = "bv_" .. v end
  add("#if TPR > 1")
  if design.xred == "shfl" then
    add("{")
    add("  #pragma unroll")
    add("  for (int o = (TPR < 32 ? TPR : 32) / 2; o > 0; o >>= 1) {")
    for _, v in ipairs(vars) do
      add(string.format("    %s %s = __shfl_xor_sync(0xffffffffu, %s, o);", ctype, b[v], v))
    end
    for _, s in ipairs(combine(b)) do add("    " .. s) end
    add("  }")
    for _, v in ipairs(vars) do
      add(string.format("  %s = __shfl_sync(0xffffffffu, %s, 0, TPR < 32 ? TPR : 32);", v, v))
    end
    add("}")
    add("#if TPR > 32")
    for _, v in ipairs(vars) do
      add(string.format("if ((tid & 31) == 0) sh_%s[tid >> 5] = %s;", v, v))
    end
    add("KG_BARRIER();")
    add("{")
    add("  int w0 = (tid - lane) >> 5;")
    for _, v in ipairs(vars) do add(string.format("  %s = sh_%s[w0];", v, v)) end
    add("  for (int wq = 1; wq < TPR / 32; wq++) {")
    for _, v in ipairs(vars) do
      add(string.format("    %s %s = sh_%s[w0 + wq];", ctype, b[v], v))
    end
    for _, s in ipairs(combine(b)) do add("    " .. s) end
    add("  }")
    add("}")
    add("KG_BARRIER();")
    add("#endif")
  else
    for _, v in ipairs(vars) do add(string.format("sh_%s[tid] = %s;", v, v)) end
    add("KG_BARRIER();")
    add("for (int o = TPR / 2; o > 0; o >>= 1) {")
    add("  if (lane < o) {")
    for _, v in ipairs(vars) do
      add(string.format("    %s %s = sh_%s[tid + o];", ctype, b[v], v))
    end
    for _, s in ipairs(combine(b)) do add("    " .. s) end
    for _, v in ipairs(vars) do add(string.format("    sh_%s[tid] = %s;", v, v)) end
    add("  }")
    add("  KG_BARRIER();")
    add("}")
    for _, v in ipairs(vars) do add(string.format("%s = sh_%s[tid - lane];", v, v)) end
    add("KG_BARRIER();")
  end
  add("#endif")
  return table.concat(L, "\n")
end

-- shared arrays the reduction needs
local function shared_decl(design, vars, ctype)
  ctype = ctype or "float"
  local L = {}
  for _, v in ipairs(vars) do
    if design.xred == "shfl" then
      L[#L + 1] = string.format("#if TPR > 32\n  KG_SHARED %s sh_%s[BLOCK / 32];\n#endif", ctype, v)
    else
      L[#L + 1] = string.format("#if TPR > 1\n  KG_SHARED %s sh_%s[BLOCK];\n#endif", ctype, v)
    end
  end
  return table.concat(L, "\n")
end

-- the template ------------------------------------------------------------------

function T.supports(spec)
  if not kg.one_op(spec) then
    return false, "rownorm takes a kernel of one op (and a transpose of its result)"
  end
  local op = spec.nodes[1].op
  if op ~= "softmax" and op ~= "layernorm" and op ~= "rmsnorm" then
    return false, "op " .. op .. " is not softmax, layernorm or rmsnorm"
  end
  local g = geometry(spec)
  if not g.x or not g.y then return false, "x and the result must be arguments" end
  for _, a in ipairs({ g.x, g.y }) do
    if a.dtype ~= "f32" and a.dtype ~= "f16" and a.dtype ~= "bf16" then
      return false, "dtype " .. a.dtype .. " is not a float type"
    end
  end
  return true
end

function T.constraints(spec, cfg)
  local g = geometry(spec)
  local lim = spec.limits.threads
  if cfg.xred == "shfl" and spec.backend ~= "cuda" then
    return false, "warp shuffles are CUDA only"
  end
  if cfg.path == "onepass" and g.node.op == "rmsnorm" then
    return false, "rmsnorm has a single reduction: onepass is twopass"
  end
  if cfg.BLOCK > lim then return false, "BLOCK over the device's threads per block" end
  if cfg.TPR > cfg.BLOCK then return false, "TPR over BLOCK" end
  if cfg.TPR > np2(g.N) then return false, "more threads per row than elements" end
  local npt = kg.cdiv(g.N, cfg.TPR)
  if cfg.path == "tile" then
    if (g.sx == 1 and not y_staged(g)) or g.N == 1 then
      return false, "tile is for rows whose elements are strided"
    end
    local esz = g.x.dtype == "f32" and 4 or 2
    local bytes = (cfg.BLOCK // cfg.TPR) * ((g.N + 1) * esz + 16)
    local lim = spec.limits.smem
    if spec.backend == "cuda" and lim > 48 * 1024 then lim = 48 * 1024 end
    if bytes > lim then return false, "the rows' tile is over the shared memory" end
  elseif cfg.path == "regs" then
    if npt > 32 then return false, "more than 32 register values per thread" end
  elseif npt > 256 and cfg.TPR < math.min(cfg.BLOCK, spec.limits.threads) then
    return false, "more than 256 elements per thread while TPR could grow"
  end
  if cfg.BLOCK > 32 and cfg.BLOCK // cfg.TPR > np2(g.rows) then
    return false, "more rows per block than rows"
  end
  if cfg.xred == "shfl" and cfg.TPR == 1 then
    return false, "TPR = 1 has nothing to shuffle"
  end
  return true
end

-- A rough relative time of a config, so that the tuner's first samples
-- (one per design point, best-ranked design points first) are sensible at
-- the small budgets of a whole model.  Fitted by eye to the H100 trials of
-- 2026-11-25 (docs/performance.md attempt 12): the passes over x in global
-- memory (regs and tile read it once, onepass twice, twopass three times);
-- a row whose elements are strided costs each lane a sector unless the tile
-- stages it or TPR = 1 (then consecutive threads read adjacent rows); and
-- the winners held 16 to 32 elements a thread in blocks of 64 to 256.
function T.rank(spec, cfg)
  local g = geometry(spec)
  local op = g.node.op
  local passes = ({ regs = 1.1, tile = 1.15, onepass = 2,
    twopass = (op == "rmsnorm") and 2 or 3 })[cfg.path]
  -- regs with 16-byte rows: an eighth of the loads and stores (a guess)
  local V = cfg.path == "regs" and vec16(spec, g) or nil
  if V and g.N % (cfg.TPR * V) == 0 then passes = passes * 0.8 end
  local strided = (g.sx ~= 1 or g.sy ~= 1) and g.N > 1
  local coal = 1
  if strided and cfg.path ~= "tile" and cfg.TPR > 1 then coal = 2 end
  if cfg.path == "tile" and y_staged(g) then
    -- the staged results leave in runs of a block's rows: a run under a
    -- 32-byte sector wastes the rest of it
    local run = (cfg.BLOCK // cfg.TPR) * (g.y.dtype == "f32" and 4 or 2)
    if run < 32 then coal = coal * 32 / run end
  end
  local npt = kg.cdiv(g.N, cfg.TPR)
  local function dev(v, c) return math.abs(math.log(v / c, 2)) end
  local bal = 1 + 0.1 * dev(npt, 24) + 0.05 * dev(cfg.BLOCK, 128)
  -- too few threads for the device: the rows' threads against 1024 an SM
  local nthr = g.rows * cfg.TPR
  local full = (spec.limits.units or 80) * 1024
  local occ = nthr < full and math.sqrt(full / nthr) or 1
  local xred = (cfg.xred == "smem" and 1.05 or 1) * (cfg.TPR > 32 and 1.05 or 1)
  return passes * coal * bal * occ * xred
end

function T.launch(spec, cfg)
  local g = geometry(spec)
  local rpb = cfg.BLOCK // cfg.TPR
  return { grid = { math.max(1, kg.cdiv(g.rows, rpb)), 1, 1 },
           block = { cfg.BLOCK, 1, 1 }, smem = 0 }
end

function T.emit(spec, design)
  local g = geometry(spec)
  local n, x, y = g.node, g.x, g.y
  local op = n.op
  local cuda = spec.backend == "cuda"
  local EXP = cuda and "expf" or "exp"
  local SQRT = cuda and "sqrtf" or "sqrt"
  local DEV = cuda and "static __device__ __forceinline__ " or ""
  local gamma = (op == "layernorm" or op == "rmsnorm") and argof(spec, n.args[2]) or nil
  local beta = op == "layernorm" and argof(spec, n.args[3]) or nil
  local N = g.N

  local split, idx = split_row(x.shape, g.axis, "row", "  ")
  local xi, yi = {}, {}
  for i, e in pairs(idx) do xi[i] = e; yi[i] = e end
  local xbase, ybase = offs(x, xi), offs(y, yi)
  xi[g.axis] = "j"; yi[g.axis] = "j"
  -- element j of the row, relative to the row's base
  local sx = g.sx
  local sy = y.shape[g.axis] == 1 and 0 or y.strides[g.axis]
  -- the tile keeps x's storage type; OpenCL C without cl_khr_fp16 has no
  -- half arrays, only half pointers, so its f16 tile is ushort seen as half
  local half_cl = spec.backend ~= "cuda" and x.dtype == "f16"
  local tlp = half_cl and "((__local half *)tl)" or "tl"
  local function xat(j)
    if design.path == "tile" then
      return kg.load(spec, x.dtype, tlp, "rl * " .. (N + 1) .. " + (" .. j .. ")")
    end
    return kg.load(spec, x.dtype, x.cname, "xb + (long)(" .. j .. ") * " .. sx .. "L")
  end
  local stage = design.path == "tile" and y_staged(g)
  -- regs with 16-byte rows (RN_VEC): thread lane holds runs of RN_V values
  -- lane, lane + TPR, ... of the row; the results replace v[] and leave a
  -- run at a time after the last pass
  local V = design.path == "regs" and vec16(spec, g) or nil
  local function yset(j, v)
    if stage then return kg.store(spec, x.dtype, tlp, "rl * " .. (N + 1) .. " + (" .. j .. ")", v) end
    local st = kg.store(spec, y.dtype, y.cname, "yb + (long)(" .. j .. ") * " .. sy .. "L", v)
    if V then return "\n#if RN_VEC\n      v[k] = " .. v .. ";\n#else\n      " .. st .. "\n#endif\n    " end
    return st
  end
  local function gat(a, j) return kg.load(spec, a.dtype, a.cname, offs(a, { "(" .. j .. ")" })) end
  local eps = n.attrs.eps and kg.float(n.attrs.eps) or "0.0f"

  -- the row's elements as a loop: body(jexpr, vexpr) -> statements
  local function each(body, ind)
    ind = ind or "  "
    if design.path == "regs" then
      return string.format("%s#pragma unroll\n%sfor (int k = 0; k < NPT; k++) {\n%s  long j = RN_J(k);\n%s  if (valid && j < %dL) { %s }\n%s}",
        ind, ind, ind, ind, N, body("j", "v[k]"), ind)
    end
    return string.format("%sif (valid) for (long j = lane; j < %dL; j += TPR) {\n%s  float xv = %s;\n%s  %s\n%s}",
      ind, N, ind, xat("j"), ind, body("j", "xv"), ind)
  end
  -- RN_VEC and gamma (beta) contiguous in x's type, in aligned runs: the
  -- last pass reads them 16 bytes a run, where a load a value had cost the
  -- L1 sixteen times the row's own traffic (docs/performance.md, attempt 27)
  local function vec_ok(a)
    return a == nil or (a.dtype == x.dtype and a.rank == 1 and a.strides[1] == 1 and a.offset % V == 0)
  end
  local gvec = V and gamma and vec_ok(gamma) and vec_ok(beta)
  -- the last pass: e(xv, g, b) the result of value xv with gamma g and beta b
  -- (nil where absent)
  local function affine(e)
    local plain = each(function(j, xv)
      return yset(j, e(xv, gamma and gat(gamma, j), beta and gat(beta, j)))
    end)
    if not gvec then return plain end
    local ct = kg.ctype(spec, x.dtype)
    local L = { "#if RN_VEC", "  #pragma unroll", "  for (int c = 0; c < NPT / RN_V; c++) {",
      "    const long j0 = ((long)lane + (long)c * TPR) * RN_V;" }
    for _, a in ipairs({ gamma, beta }) do
      local nm = a == gamma and "g" or "b"
      L[#L + 1] = string.format("    uint4 %sr = make_uint4(0u, 0u, 0u, 0u);", nm)
      L[#L + 1] = string.format("    if (valid) %sr = *(const uint4 *)(%s + %s);", nm, a.cname, offs(a, { "j0" }))
      L[#L + 1] = string.format("    const %s *%sh = (const %s *)&%sr;", ct, nm, ct, nm)
    end
    L[#L + 1] = "    #pragma unroll"
    L[#L + 1] = "    for (int e = 0; e < RN_V; e++) v[c * RN_V + e] = " ..
      e("v[c * RN_V + e]", kg.load(spec, x.dtype, "gh", "e"), beta and kg.load(spec, x.dtype, "bh", "e")) .. ";"
    L[#L + 1] = "  }"
    L[#L + 1] = "#else"
    L[#L + 1] = plain
    L[#L + 1] = "#endif"
    return table.concat(L, "\n")
  end

  local helpers = {}
  local decl = {}
  local body = {}
  local function B(s) body[#body + 1] = s end

  if design.path == "tile" then
    -- stage the block's rows: each row's base once, then the elements
    -- along the rows (consecutive rows are adjacent in a transposed view)
    -- or along a row when that is the contiguous axis
    local split0, idx0 = split_row(x.shape, g.axis, "row0 + tid", "      ")
    local xi0 = {}
    for i, e in pairs(idx0) do xi0[i] = e end
    decl[#decl + 1] = string.format("  KG_SHARED %s tl[(BLOCK / TPR) * %d];\n  KG_SHARED long tlb[BLOCK / TPR];",
      half_cl and "ushort" or kg.ctype(spec, x.dtype), N + 1)
    if stage then decl[#decl + 1] = "  KG_SHARED long tyb[BLOCK / TPR];" end
    B("  const long row0 = KG_BID(0) * (BLOCK / TPR);")
    B("  const int rl = tid / TPR;")
    B(string.format("  if (tid < BLOCK / TPR) {\n    if (row0 + tid < %dL) {\n%s\n      tlb[tid] = %s;%s\n    } else tlb[tid] = -1L;\n  }",
      g.rows, table.concat(split0, "\n"), offs(x, xi0),
      stage and ("\n      tyb[tid] = " .. offs(y, xi0) .. ";") or ""))
    B("  KG_BARRIER();")
    -- CUDA, 16-bit x whose rows are adjacent (the innermost other axis has
    -- stride 1) and 16-byte aligned: a block's rows, a multiple of 8 within
    -- one run of that axis, are read 8 at a time (one 16-byte load per
    -- element of the row, 8 shared-memory stores)
    local inner
    for i = #x.shape, 1, -1 do
      if i ~= g.axis and x.shape[i] ~= 1 then inner = i; break end
    end
    local vec = cuda and x.dtype ~= "f32" and inner and x.strides[inner] == 1 and x.offset % 8 == 0
    if vec then
      for i = 1, #x.shape do
        if i ~= inner and x.shape[i] ~= 1 and x.strides[i] % 8 ~= 0 then vec = false end
      end
    end
    if vec then
      B(string.format("#if (BLOCK / TPR) %% 8 == 0 && %d %% (BLOCK / TPR) == 0", x.shape[inner]))
      B("  #pragma unroll 4")
      B(string.format("  for (int e = tid; e < (BLOCK / TPR / 8) * %d; e += BLOCK) {", N))
      B("    const int c = e % (BLOCK / TPR / 8), j = e / (BLOCK / TPR / 8);")
      B("    uint4 v = make_uint4(0u, 0u, 0u, 0u);")
      B(string.format("    if (tlb[c * 8] >= 0L) v = *(const uint4 *)(%s + tlb[c * 8] + (long)j * %dL);", x.cname, sx))
      B("    const unsigned short *h = (const unsigned short *)&v;")
      B("    #pragma unroll")
      B(string.format("    for (int k = 0; k < 8; k++) ((unsigned short *)tl)[(c * 8 + k) * %d + j] = h[k];", N + 1))
      B("  }")
      B("#else")
    end
    B("  #pragma unroll 4")
    B(string.format("  for (int e = tid; e < (BLOCK / TPR) * %d; e += BLOCK) {", N))
    if sx == 1 then   -- rows contiguous: along each row
      B(string.format("    const int r = e / %d, j = e %% %d;", N, N))
    else
      B(string.format("    const int r = e %% (BLOCK / TPR), j = e / (BLOCK / TPR);"))
    end
    B("    " .. kg.store(spec, x.dtype, tlp, "r * " .. (N + 1) .. " + j",
      "tlb[r] >= 0L ? " .. kg.load(spec, x.dtype, x.cname, "tlb[r] + (long)j * " .. sx .. "L") .. " : 0.0f"))
    B("  }")
    if vec then B("#endif") end
    B("  KG_BARRIER();")
  end
  if design.path == "regs" then
    B("  float v[NPT];")
    if V then
      local ct = kg.ctype(spec, x.dtype)
      B("#if RN_VEC")
      B("  #pragma unroll")
      B("  for (int c = 0; c < NPT / RN_V; c++) {")
      B("    const long j0 = ((long)lane + (long)c * TPR) * RN_V;")
      B("    uint4 u = make_uint4(0u, 0u, 0u, 0u);")
      B(string.format("    if (valid) u = *(const uint4 *)(%s + xb + j0);", x.cname))
      B(string.format("    const %s *h = (const %s *)&u;", ct, ct))
      B("    #pragma unroll")
      B("    for (int e = 0; e < RN_V; e++) v[c * RN_V + e] = " .. kg.load(spec, x.dtype, "h", "e") .. ";")
      B("  }")
      B("#else")
    end
    B("  #pragma unroll")
    B("  for (int k = 0; k < NPT; k++) {")
    B("    long j = lane + (long)k * TPR;")
    B(string.format("    v[k] = (valid && j < %dL) ? %s : 0.0f;", N, xat("j")))
    B("  }")
    if V then B("#endif") end
  end

  local sum2 = function(v) return function(b) return { v .. " += " .. b[v] .. ";" } end end

  if op == "softmax" then
    helpers[#helpers + 1] = DEV .. "float rn_max(float a, float b) { return (a != a || b != b) ? a + b : (a > b ? a : b); }"
    if design.path == "onepass" then
      -- exp(a - m), 0 for a = -inf (so an empty or -inf partial adds nothing)
      helpers[#helpers + 1] = DEV .. string.format("float rn_scale(float a, float m) { return a == -KG_INF ? 0.0f : %s(a - m); }", EXP)
      decl[#decl + 1] = shared_decl(design, { "m", "s" })
      B("  float m = -KG_INF, s = 0.0f;")
      B(each(function(j, xv)
        return string.format("float mn = rn_max(m, %s); s = s * rn_scale(m, mn) + rn_scale(%s, mn); m = mn;", xv, xv)
      end))
      B(reduction(spec, design, { "m", "s" }, function(b)
        return { string.format("{ float mn = rn_max(m, %s); s = s * rn_scale(m, mn) + %s * rn_scale(%s, mn); m = mn; }",
          b.m, b.s, b.m) }
      end, "  "))
    else
      decl[#decl + 1] = shared_decl(design, { "m" })
      decl[#decl + 1] = shared_decl(design, { "s" })
      B("  float m = -KG_INF;")
      B(each(function(j, xv) return string.format("m = rn_max(m, %s);", xv) end))
      B(reduction(spec, design, { "m" }, function(b)
        return { string.format("m = rn_max(m, %s);", b.m) } end, "  "))
      B("  float s = 0.0f;")
      B(each(function(j, xv) return string.format("s += %s(%s - m);", EXP, xv) end))
      B(reduction(spec, design, { "s" }, sum2("s"), "  "))
    end
    B(each(function(j, xv) return yset(j, string.format("%s(%s - m) / s", EXP, xv)) end))
  elseif op == "layernorm" then
    if design.path == "onepass" then
      decl[#decl + 1] = shared_decl(design, { "c", "mu", "m2" })
      B("  float c = 0.0f, mu = 0.0f, m2 = 0.0f;")
      B(each(function(j, xv)
        return string.format("c += 1.0f; { float d = %s - mu; mu += d / c; m2 += d * (%s - mu); }", xv, xv)
      end))
      B(reduction(spec, design, { "c", "mu", "m2" }, function(b)
        return { string.format("if (%s > 0.0f) { float nc = c + %s; float d = %s - mu; float f = %s / nc; mu += d * f; m2 += %s + d * d * c * f; c = nc; }",
          b.c, b.c, b.mu, b.c, b.m2) }
      end, "  "))
      B(string.format("  float var = m2 / %s;", kg.float(N)))
    else
      decl[#decl + 1] = shared_decl(design, { "s" })
      decl[#decl + 1] = shared_decl(design, { "q" })
      B("  float s = 0.0f;")
      B(each(function(j, xv) return string.format("s += %s;", xv) end))
      B(reduction(spec, design, { "s" }, sum2("s"), "  "))
      B(string.format("  float mu = s / %s;", kg.float(N)))
      B("  float q = 0.0f;")
      B(each(function(j, xv) return string.format("{ float d = %s - mu; q += d * d; }", xv) end))
      B(reduction(spec, design, { "q" }, sum2("q"), "  "))
      B(string.format("  float var = q / %s;", kg.float(N)))
    end
    B(string.format("  float rs = 1.0f / %s(var + %s);", SQRT, eps))
    B(affine(function(xv, ga, be)
      local e = string.format("(%s - mu) * rs", xv)
      if ga then e = e .. " * " .. ga end
      if be then e = e .. " + " .. be end
      return e
    end))
  else -- rmsnorm
    decl[#decl + 1] = shared_decl(design, { "q" })
    B("  float q = 0.0f;")
    B(each(function(j, xv) return string.format("q += %s * %s;", xv, xv) end))
    B(reduction(spec, design, { "q" }, sum2("q"), "  "))
    B(string.format("  float rs = 1.0f / %s(q / %s + %s);", SQRT, kg.float(N), eps))
    B(affine(function(xv, ga)
      local e = string.format("%s * rs", xv)
      if ga then e = e .. " * " .. ga end
      return e
    end))
  end

  if V then
    -- RN_VEC: the results, in v[], leave a 16-byte run at a time
    B("#if RN_VEC")
    B("  if (valid) {")
    B("    #pragma unroll")
    B("    for (int c = 0; c < NPT / RN_V; c++) {")
    B("      " .. kg.st16(spec, string.format("%s + yb + ((long)lane + (long)c * TPR) * RN_V", y.cname),
      kg.pack16(spec, y.dtype, function(e) return string.format("v[c * RN_V + %d]", e) end)))
    B("    }")
    B("  }")
    B("#endif")
  end
  if stage then
    -- the results leave the tile along the rows: consecutive threads write
    -- consecutive rows, adjacent in a transposed result
    B("  KG_BARRIER();")
    B("  #pragma unroll 4")
    B(string.format("  for (int e = tid; e < (BLOCK / TPR) * %d; e += BLOCK) {", N))
    B("    const int r = e % (BLOCK / TPR), j = e / (BLOCK / TPR);")
    B("    if (tlb[r] >= 0L) " .. kg.store(spec, y.dtype, y.cname, "tyb[r] + (long)j * " .. sy .. "L",
      kg.load(spec, x.dtype, tlp, "r * " .. (N + 1) .. " + j")))
    B("  }")
  end

  local out = { kg.prelude(spec) }
  out[#out + 1] = kg.comment(string.format("%s over axis %d: %d rows of %d", op, g.axis - 1, g.rows, N))
  out[#out + 1] = string.format("#define NPT ((%d + TPR - 1) / TPR)", N)
  if V then
    out[#out + 1] = string.format("#define RN_V %d\n#if %d %% (TPR * RN_V) == 0\n#define RN_VEC 1\n" ..
      "#define RN_J(k) (((long)lane + (long)((k) / RN_V) * TPR) * RN_V + (k) %% RN_V)\n#else\n" ..
      "#define RN_VEC 0\n#define RN_J(k) (lane + (long)(k) * TPR)\n#endif", V, N)
  elseif design.path == "regs" then
    out[#out + 1] = "#define RN_J(k) (lane + (long)(k) * TPR)"
  end
  for _, h in ipairs(helpers) do out[#out + 1] = h end
  out[#out + 1] = kg.line()
  out[#out + 1] = string.format([[
KG_KERNEL void %s(
    %s)
{
  KG_GRID_DEP();
%s
  const int tid = (int)KG_TID(0);
  const int lane = tid %% TPR;
  const long row = KG_BID(0) * (BLOCK / TPR) + tid / TPR;
  const int valid = row < %dL;
%s
  const long xb = %s;
  const long yb = %s;
%s
}
]], spec.kernel, kg.params(spec), table.concat(decl, "\n"), g.rows,
    table.concat(split, "\n"), xbase, ybase, table.concat(body, "\n"))
  return table.concat(out, "\n")
end

return T
