-- templates/reduce.lua -- sum, mean and max over one axis (keepdim or not).
--
-- The input x is seen as NROWS rows of N elements along the reduced axis;
-- each row gives one output element, and rows are numbered in the output's
-- row-major order, so row r is output element r.  A row is strided when the
-- axis is not the last, and x may be any strided view (read through its
-- strides and offset).  TPR threads (a power of two) share one row and
-- BLOCK / TPR rows share a block: thread tid works on row
-- blockIdx * (BLOCK / TPR) + tid / TPR, visiting the elements lane,
-- lane + TPR, ... (lane = tid % TPR).  The TPR partial results are combined
-- by a tree in shared memory (KG_SHARED, KG_BARRIER) or, on CUDA, with warp
-- shuffles (then one shared-memory step across the warps of a row when
-- TPR > 32).  With TPR = 1 one thread reduces a whole row; when the axis is
-- not the last, consecutive threads then read consecutive memory.
--
-- Float inputs accumulate in f32 (mean = sum / N); i32 and bool inputs in
-- int (sum of bool counts, max of bool is any).  max propagates NaN.
--
-- Design knobs: xred = smem | shfl (CUDA only).
-- Tuning knobs: BLOCK threads per block, TPR threads per row.

local T = {
  name = "reduce",
  backends = { "cuda", "opencl" },
  design = {
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

local function geometry(spec)
  local n = spec.nodes[1]
  local x = argof(spec, n.args[1])
  local y = argof(spec, n.results[1])
  if y then y = contig(y) end
  local axis = n.attrs.axis + 1
  local N = x.shape[axis]
  return { node = n, x = x, y = y, axis = axis, N = N, rows = x.numel // N,
           keepdim = n.attrs.keepdim and true or false }
end

-- block-wide combination of one per-thread value `v` of type ctype;
-- combine(a, b) is a C expression.  Every thread of a row ends with the
-- row's first lane's value.  All threads of the block must run it.
local function reduction(design, v, ctype, combine, ind)
  local L = {}
  local function add(s) L[#L + 1] = ind .. s end
  add("#if TPR > 1")
  if design.xred == "shfl" then
    add("#pragma unroll")
    add("for (int o = (TPR < 32 ? TPR : 32) / 2; o > 0; o >>= 1) {")
    add(string.format("  %s bv = __shfl_xor_sync(0xffffffffu, %s, o);", ctype, v))
    add(string.format("  %s = %s;", v, combine(v, "bv")))
    add("}")
    add(string.format("%s = __shfl_sync(0xffffffffu, %s, 0, TPR < 32 ? TPR : 32);", v, v))
    add("#if TPR > 32")
    add(string.format("if ((tid & 31) == 0) sh[tid >> 5] = %s;", v))
    add("KG_BARRIER();")
    add("{")
    add("  int w0 = (tid - lane) >> 5;")
    add(string.format("  %s = sh[w0];", v))
    add(string.format("  for (int wq = 1; wq < TPR / 32; wq++) %s = %s;", v, combine(v, "sh[w0 + wq]")))
    add("}")
    add("#endif")
  else
    add(string.format("sh[tid] = %s;", v))
    add("KG_BARRIER();")
    add("for (int o = TPR / 2; o > 0; o >>= 1) {")
    add("  if (lane < o) {")
    add(string.format("    %s = %s;", v, combine(v, "sh[tid + o]")))
    add(string.format("    sh[tid] = %s;", v))
    add("  }")
    add("  KG_BARRIER();")
    add("}")
    add(string.format("%s = sh[tid - lane];", v))
  end
  add("#endif")
  return table.concat(L, "\n")
end

-- the template ------------------------------------------------------------------

local float_dt = { f32 = true, f16 = true, bf16 = true }

function T.supports(spec)
  if #spec.nodes ~= 1 then return false, "reduce takes a kernel of one op" end
  local op = spec.nodes[1].op
  if op ~= "sum" and op ~= "mean" and op ~= "max" then
    return false, "op " .. op .. " is not sum, mean or max"
  end
  local g = geometry(spec)
  if not g.x or not g.y then return false, "x and the result must be arguments" end
  if g.x.rank == 0 then return false, "rank-0 input" end
  return true
end

function T.constraints(spec, cfg)
  local g = geometry(spec)
  if cfg.xred == "shfl" and spec.backend ~= "cuda" then
    return false, "warp shuffles are CUDA only"
  end
  if cfg.xred == "shfl" and cfg.TPR == 1 then
    return false, "TPR = 1 has nothing to shuffle"
  end
  if cfg.BLOCK > spec.limits.threads then
    return false, "BLOCK over the device's threads per block"
  end
  if cfg.TPR > cfg.BLOCK then return false, "TPR over BLOCK" end
  if cfg.TPR > np2(g.N) then return false, "more threads per row than elements" end
  if kg.cdiv(g.N, cfg.TPR) > 256 and cfg.TPR < math.min(cfg.BLOCK, spec.limits.threads) then
    return false, "more than 256 elements per thread while TPR could grow"
  end
  if cfg.BLOCK > 32 and cfg.BLOCK // cfg.TPR > np2(g.rows) then
    return false, "more rows per block than rows"
  end
  return true
end

function T.launch(spec, cfg)
  local g = geometry(spec)
  return { grid = { math.max(1, kg.cdiv(g.rows, cfg.BLOCK // cfg.TPR)), 1, 1 },
           block = { cfg.BLOCK, 1, 1 }, smem = 0 }
end

function T.emit(spec, design)
  local g = geometry(spec)
  local n, x, y = g.node, g.x, g.y
  local op = n.op
  local cuda = spec.backend == "cuda"
  local DEV = cuda and "static __device__ __forceinline__ " or ""
  local isf = float_dt[x.dtype]
  local acc = isf and "float" or "int"

  local split, idx = split_row(x.shape, g.axis, "row", "  ")
  local xbase = offs(x, idx)
  -- the output's index: the row's outer indices, the axis dropped or kept as 0
  local yidx = {}
  for i = 1, x.rank do
    if i < g.axis then yidx[i] = idx[i]
    elseif i > g.axis then yidx[g.keepdim and i or i - 1] = idx[i] end
  end
  if g.keepdim then yidx[g.axis] = "0" end
  local ybase = offs(y, yidx)
  local sx = x.shape[g.axis] == 1 and 0 or x.strides[g.axis]

  local load
  if isf then
    load = kg.load(spec, x.dtype, x.cname, "xb + j * " .. sx .. "L")
  else
    load = string.format("(int)%s[xb + j * %dL]", x.cname, sx)
  end

  local helpers, init, combine = {}, nil, nil
  if op == "max" then
    if isf then
      helpers[#helpers + 1] = DEV .. "float rd_max(float a, float b) { return (a != a || b != b) ? a + b : (a > b ? a : b); }"
      init = "-KG_INF"
    else
      helpers[#helpers + 1] = DEV .. "int rd_max(int a, int b) { return a > b ? a : b; }"
      init = x.dtype == "bool" and "0" or "(-2147483647 - 1)"
    end
    combine = function(a, b) return "rd_max(" .. a .. ", " .. b .. ")" end
  else
    init = isf and "0.0f" or "0"
    combine = function(a, b) return "(" .. a .. " + " .. b .. ")" end
  end
  local result = "acc"
  if op == "mean" then result = "acc / " .. kg.float(g.N) end
  local store
  if y.dtype == "i32" then
    store = string.format("%s[%s] = %s;", y.cname, ybase, result)
  elseif y.dtype == "bool" then
    store = string.format("%s[%s] = (%s) != 0;", y.cname, ybase, result)
  else
    store = kg.store(spec, y.dtype, y.cname, ybase, isf and result or "(float)(" .. result .. ")")
  end

  local shdecl
  if design.xred == "shfl" then
    shdecl = string.format("#if TPR > 32\n  KG_SHARED %s sh[BLOCK / 32];\n#endif", acc)
  else
    shdecl = string.format("#if TPR > 1\n  KG_SHARED %s sh[BLOCK];\n#endif", acc)
  end

  local out = { kg.prelude(spec) }
  out[#out + 1] = kg.comment(string.format("%s over axis %d: %d rows of %d", op, g.axis - 1, g.rows, g.N))
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
  %s acc = %s;
  if (valid) for (long j = lane; j < %dL; j += TPR) acc = %s;
%s
  if (valid && lane == 0) %s
}
]], spec.kernel, kg.params(spec), shdecl, g.rows, table.concat(split, "\n"), xbase,
    acc, init, g.N, combine("acc", load), reduction(design, "acc", acc, combine, "  "), store)
  return table.concat(out, "\n")
end

return T
