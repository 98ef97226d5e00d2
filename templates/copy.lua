-- templates/copy.lua -- a layout op materialised into contiguous outputs.
--
-- A copy kernel holds one layout node (in practice a reshape the planner
-- could not express as a view, e.g. of a transposed tensor; any of reshape,
-- transpose, unsqueeze, split -- several outputs -- and concat -- several
-- inputs -- is accepted, and a chain of them too).  Elements are copied as
-- raw bits (8, 16 or 32-bit words), so every value -- NaN payloads, i32
-- beyond 2^24 -- survives unchanged.
--
-- Design knobs:
--   path = gather  each thread copies ITEMS elements of each output, BLOCK
--                  threads per block, consecutive elements a block apart:
--                  the output index is split into the output's axes and
--                  mapped back through the node (as in elementwise.lua) to
--                  the input's strides and offset.  Writes coalesce; reads
--                  do when the input's innermost axis is the output's.
--          tiled   reshape only, when the input's unit-stride axis P is not
--                  its innermost logical axis Q (a transposed view): a
--                  TILE x TILE tile of the (P, Q) plane is read along P into
--                  shared memory and written along Q, so both sides
--                  coalesce.  Blocks are TILE x BR threads.
-- Tuning knobs: BLOCK, ITEMS (gather); TILE, BR (tiled).  A design ignores
-- the other's knobs, which the constraints pin to their first value.

local T = {
  name = "copy",
  backends = { "cuda", "opencl" },
  design = { path = { "gather", "tiled" } },
  tuning = {
    BLOCK = { 64, 128, 256, 512 },
    ITEMS = { 1, 2, 4 },
    TILE = { 16, 32, 64 },
    BR = { 2, 4, 8, 16 },
  },
}

-- local helpers -------------------------------------------------------------

local np2 = kg.np2

-- C type of a dtype's raw bits
local function bits(spec, dtype)
  local size = ({ f32 = 4, i32 = 4, f16 = 2, bf16 = 2, bool = 1 })[dtype]
  if not size then kg.fail("copy: dtype %s", tostring(dtype)) end
  if spec.backend == "cuda" then
    return ({ "unsigned char", "unsigned short", nil, "unsigned int" })[size]
  end
  return ({ "uchar", "ushort", nil, "uint" })[size]
end

local offs = kg.offsets

local function largest(spec)
  local n = 0
  for _, o in ipairs(spec.outputs) do
    if o.numel > n then n = o.numel end
  end
  return n
end

-- the (shape, strides) of arg with size-1 axes dropped and axes that are
-- contiguous among themselves merged; the offset is left to the caller
local function canonical(arg)
  local sh, st = {}, {}
  for i = 1, arg.rank do
    if arg.shape[i] ~= 1 then
      local k = #sh
      if k > 0 and st[k] == arg.strides[i] * arg.shape[i] then
        sh[k] = sh[k] * arg.shape[i]
        st[k] = arg.strides[i]
      else
        sh[k + 1] = arg.shape[i]
        st[k + 1] = arg.strides[i]
      end
    end
  end
  return sh, st
end

-- the tiled plan of a kernel, or nil and why not
local function tiling(spec)
  if #spec.nodes ~= 1 or spec.nodes[1].op ~= "reshape" then
    return nil, "tiled is for a single reshape"
  end
  if #spec.inputs ~= 1 or #spec.outputs ~= 1 then return nil, "one input and one output" end
  local x, y = spec.inputs[1], spec.outputs[1]
  local sh, st = canonical(x)
  local q = #sh
  if q < 2 then return nil, "the input is one run of memory" end
  local p
  for i = 1, q - 1 do
    if st[i] == 1 then p = i end
  end
  if not p then return nil, "no unit-stride axis besides the innermost" end
  return { x = x, y = y, shape = sh, strides = st, p = p, q = q }
end

-- the gather generator: output index -> source element -------------------------

local function producers(spec)
  local by = {}
  for _, n in ipairs(spec.nodes) do
    for r, v in ipairs(n.results) do by[v] = { node = n, result = r } end
  end
  return by
end

local Gen = {}
Gen.__index = Gen

function Gen:emit(s) self.lines[#self.lines + 1] = self.indent .. s end

function Gen:temp(prefix)
  self.ntemp = self.ntemp + 1
  return prefix .. self.ntemp
end

function Gen:delinearize(lin, shape)
  local idx, rest = {}, lin
  for j = #shape, 1, -1 do
    if shape[j] == 1 then
      idx[j] = "0"
    elseif j == 1 then
      idx[j] = rest
    else
      local t = self:temp("q")
      self:emit(string.format("long %s = %s;", t, rest))
      idx[j] = "(" .. t .. " % " .. shape[j] .. "L)"
      rest = "(" .. t .. " / " .. shape[j] .. "L)"
    end
  end
  return idx
end

function Gen:linearize(idx, shape)
  local terms, s = {}, 1
  for j = #shape, 1, -1 do
    if shape[j] ~= 1 then
      terms[#terms + 1] = s == 1 and idx[j] or ("(" .. idx[j] .. ") * " .. s .. "L")
    end
    s = s * shape[j]
  end
  if #terms == 0 then return "0L" end
  return table.concat(terms, " + ")
end

-- statements setting `dst` (a bits-typed lvalue) to value v at idx
function Gen:copy(dst, v, idx)
  local spec = self.spec
  local val = spec.values[v]
  local p = self.prod[v]
  if not p then
    local a = spec.args[val.arg]
    if not a or a.output then kg.fail("copy: value %d is not an input", v) end
    self:emit(string.format("%s = s%d[%s];", dst, a.index, offs(a, idx)))
    return
  end
  local n, at, r = p.node, p.node.attrs, p.result
  local args = n.args
  local function dup() local i = {}; for j, e in ipairs(idx) do i[j] = e end; return i end
  if n.op == "transpose" then
    local i = dup()
    i[at.dim0 + 1], i[at.dim1 + 1] = idx[at.dim1 + 1], idx[at.dim0 + 1]
    return self:copy(dst, args[1], i)
  elseif n.op == "unsqueeze" then
    local i = {}
    for j, e in ipairs(idx) do if j ~= at.axis + 1 then i[#i + 1] = e end end
    return self:copy(dst, args[1], i)
  elseif n.op == "reshape" then
    local src = spec.values[args[1]]
    local lin = self:temp("l")
    self:emit(string.format("long %s = %s;", lin, self:linearize(idx, val.shape)))
    return self:copy(dst, args[1], self:delinearize(lin, src.shape))
  elseif n.op == "split" then
    local off = 0
    for k = 1, r - 1 do off = off + spec.values[n.results[k]].shape[at.axis + 1] end
    local i = dup()
    if off ~= 0 then i[at.axis + 1] = "(" .. idx[at.axis + 1] .. " + " .. off .. "L)" end
    return self:copy(dst, args[1], i)
  elseif n.op == "concat" then
    local ax = at.axis + 1
    local lo = 0
    local saved = self.indent
    for k, a in ipairs(args) do
      local size = spec.values[a].shape[ax]
      local cond = k == #args and "" or string.format("if (%s < %dL) ", idx[ax], lo + size)
      self:emit((k == 1 and "" or "else ") .. cond .. "{")
      self.indent = saved .. "  "
      local i = dup()
      if lo ~= 0 then i[ax] = "(" .. idx[ax] .. " - " .. lo .. "L)" end
      self:copy(dst, a, i)
      self.indent = saved
      self:emit("}")
      lo = lo + size
    end
    return
  end
  kg.fail("copy: op %s is not a layout op", n.op)
end

-- the template ------------------------------------------------------------------

function T.supports(spec)
  local ok = { reshape = 1, transpose = 1, unsqueeze = 1, split = 1, concat = 1 }
  for _, n in ipairs(spec.nodes) do
    if not ok[n.op] then return false, "op " .. n.op .. " is not a layout op" end
  end
  local dt = spec.args[1].dtype
  for _, a in ipairs(spec.args) do
    if a.dtype ~= dt then return false, "arguments of different dtypes" end
  end
  return true
end

function T.constraints(spec, cfg)
  if cfg.path == "gather" then
    if cfg.TILE ~= T.tuning.TILE[1] or cfg.BR ~= T.tuning.BR[1] then
      return false, "TILE and BR are tiled's knobs"
    end
    if cfg.BLOCK > spec.limits.threads then
      return false, "BLOCK over the device's threads per block"
    end
    local n = largest(spec)
    if cfg.BLOCK > 64 and cfg.BLOCK > np2(n) then
      return false, "BLOCK beyond the elements"
    end
    if cfg.ITEMS > 1 and n < cfg.BLOCK * cfg.ITEMS then
      return false, "fewer elements than one block covers"
    end
    return true
  end
  if cfg.BLOCK ~= T.tuning.BLOCK[1] or cfg.ITEMS ~= T.tuning.ITEMS[1] then
    return false, "BLOCK and ITEMS are gather's knobs"
  end
  local t, why = tiling(spec)
  if not t then return false, why end
  if cfg.TILE * cfg.BR > spec.limits.threads then
    return false, "TILE * BR over the device's threads per block"
  end
  if cfg.BR > cfg.TILE then return false, "BR over TILE" end
  if cfg.TILE * cfg.BR < 32 then return false, "fewer than 32 threads" end
  local sp, sq = t.shape[t.p], t.shape[t.q]
  if cfg.TILE > 16 and (cfg.TILE > np2(sp) and cfg.TILE > np2(sq)) then
    return false, "TILE beyond both tiled axes"
  end
  return true
end

function T.launch(spec, cfg)
  if cfg.path == "tiled" then
    local t = tiling(spec)
    local rest = kg.numel(t.shape) // (t.shape[t.p] * t.shape[t.q])
    local nt = kg.cdiv(t.shape[t.p], cfg.TILE) * kg.cdiv(t.shape[t.q], cfg.TILE)
    return { grid = { nt * rest, 1, 1 }, block = { cfg.TILE, cfg.BR, 1 }, smem = 0 }
  end
  local n = largest(spec)
  return { grid = { math.max(1, kg.cdiv(n, cfg.BLOCK * cfg.ITEMS)), 1, 1 },
           block = { cfg.BLOCK, 1, 1 }, smem = 0 }
end

local function pointers(spec, B)
  local L = {}
  for _, a in ipairs(spec.args) do
    L[#L + 1] = string.format("  KG_GLOBAL %s%s *%s s%d = (KG_GLOBAL %s%s *)%s;",
      a.output and "" or "const ", B, "KG_RESTRICT", a.index,
      a.output and "" or "const ", B, a.cname)
  end
  return table.concat(L, "\n")
end

local function emit_gather(spec)
  local g = setmetatable({ spec = spec, prod = producers(spec), lines = {},
                           ntemp = 0, indent = "    " }, Gen)
  local by = {}
  for id, val in ipairs(spec.values) do
    if val.arg and spec.args[val.arg].output then by[val.arg] = id end
  end
  for _, o in ipairs(spec.outputs) do
    g:emit(string.format("if (i < %dL) { %s", o.numel, kg.comment(o.name)))
    local saved = g.indent
    g.indent = saved .. "  "
    local idx = g:delinearize("i", o.shape)
    local t = g:temp("v")
    g:emit(string.format("%s %s;", bits(spec, o.dtype), t))
    g:copy(t, by[o.index], idx)
    -- outputs are contiguous: element i is at i
    g:emit(string.format("s%d[i] = %s;", o.index, t))
    g.indent = saved
    g:emit("}")
  end
  return string.format([[
  long base = KG_BID(0) * KG_BDIM(0) * ITEMS + KG_TID(0);
  for (int it = 0; it < ITEMS; it++) {
    long i = base + (long)it * KG_BDIM(0);
%s
  }]], table.concat(g.lines, "\n"))
end

local function emit_tiled(spec, B)
  local t = tiling(spec)
  local sh, st = t.shape, t.strides
  local p, q = t.p, t.q
  -- output strides: contiguous over the canonical shape (same linear order)
  local ost, s = {}, 1
  for i = #sh, 1, -1 do ost[i] = s; s = s * sh[i] end
  local L = {}
  local function add(x) L[#L + 1] = x end
  add(string.format("  KG_SHARED %s tile[TILE][TILE + 1];", B))
  add("  long b = KG_BID(0);")
  add(string.format("  const long tq = b %% ((%dL + TILE - 1) / TILE); b /= (%dL + TILE - 1) / TILE;", sh[q], sh[q]))
  add(string.format("  const long tp = b %% ((%dL + TILE - 1) / TILE); b /= (%dL + TILE - 1) / TILE;", sh[p], sh[p]))
  local xb, yb = { tostring(t.x.offset) .. "L" }, { "0L" }
  for i = #sh, 1, -1 do
    if i ~= p and i ~= q then
      add(string.format("  const long r%d = b %% %dL; b /= %dL;", i, sh[i], sh[i]))
      xb[#xb + 1] = string.format("r%d * %dL", i, st[i])
      yb[#yb + 1] = string.format("r%d * %dL", i, ost[i])
    end
  end
  add(string.format("  const long xb = %s;", table.concat(xb, " + ")))
  add(string.format("  const long yb = %s;", table.concat(yb, " + ")))
  add("  const int tx = (int)KG_TID(0), ty = (int)KG_TID(1);")
  add("  for (int k = ty; k < TILE; k += BR) {")
  add("    long pp = tp * TILE + tx, qq = tq * TILE + k;")
  add(string.format("    if (pp < %dL && qq < %dL) tile[k][tx] = s1[xb + pp + qq * %dL];",
    sh[p], sh[q], st[q]))
  add("  }")
  add("  KG_BARRIER();")
  add("  for (int k = ty; k < TILE; k += BR) {")
  add("    long qq = tq * TILE + tx, pp = tp * TILE + k;")
  add(string.format("    if (pp < %dL && qq < %dL) s%d[yb + pp * %dL + qq] = tile[tx][k];",
    sh[p], sh[q], t.y.index, ost[p]))
  add("  }")
  return table.concat(L, "\n")
end

function T.emit(spec, design)
  local B = bits(spec, spec.args[1].dtype)
  local body = design.path == "tiled" and emit_tiled(spec, B) or emit_gather(spec)
  local out = { kg.prelude(spec) }
  out[#out + 1] = kg.line()
  out[#out + 1] = string.format([[
KG_KERNEL void %s(
    %s)
{
  KG_GRID_DEP();
%s
%s
}
]], spec.kernel, kg.params(spec), pointers(spec, B), body)
  return table.concat(out, "\n")
end

return T
