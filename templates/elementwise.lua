-- templates/elementwise.lua -- a fused chain (a DAG) of elementwise ops.
--
-- One work-item computes ITEMS elements of each output, BLOCK work-items
-- per block, consecutive items a block apart so loads and stores coalesce.
-- For each output element the generator walks the DAG backwards from the
-- output, mapping the element's index through every op: broadcasting
-- (size-1 axes read index 0), transpose (permute), unsqueeze (drop the
-- axis), reshape (linearise, then split into the source shape), split
-- (shift along the axis) and concat (pick the source by range) -- until it
-- reaches a kernel argument (read through its strides and offset, so views
-- cost nothing) or a constant.  Every intermediate is a named float
-- temporary, so shared subexpressions are computed once per element.
--
-- VEC = 8 (CUDA; every output of one shape whose last axis is a multiple
-- of 8): a work-item takes 8 consecutive elements along the last axis.  It
-- splits their index once, loads each argument that runs along that axis
-- with stride 1 (and starts 16-byte aligned) in 16 or 32 bytes at once,
-- computes the 8 elements in an unrolled loop, and stores such outputs 16
-- or 32 bytes at once; other arguments are read element by element.
--
-- order = tile (outputs of one shape, rank 2 or more, at most two of them):
-- where the arguments run along the outputs' second-last axis, as in a
-- transpose of [B, C, T] into [B, T, C], a block takes a 64 x 64 tile of
-- the last two axes.  It computes the tile with consecutive work-items
-- along the second-last axis (the arguments' loads coalesce), keeps the
-- values in shared memory, and stores them with consecutive work-items
-- along the last axis (the stores coalesce).  The flat order would
-- coalesce one side only.
--
-- Arithmetic is f32 whatever the storage dtype; stores round to nearest
-- even.  Outputs of different shapes are each covered by the same launch
-- (the grid covers the largest), each with its own bounds check.

local T = {
  name = "elementwise",
  backends = { "cuda", "opencl" },
  design = { order = { "flat", "tile" } },
  tuning = {
    BLOCK = { 64, 128, 256, 512 },
    ITEMS = { 1, 2, 4 },
    VEC = { 1, 8 },
  },
}

local V = 8
-- order = tile: the tile's side (a row of floats padded by one in shared
-- memory, so that both passes are free of bank conflicts)
local TS = 64
-- the innermost index of element J of a work-item's run (VEC = 8)
local VTOK = "(rv + J)"

-- dtypes moved 16 bytes at a time under VEC
local VDT = { f16 = 2, bf16 = 2, f32 = 4 }

-- can arg (its last index `last` of element J, the others `rest`) be read
-- or written as one run of V elements: stride 1 along the run, every
-- other axis a whole number of runs from a 16-byte-aligned start
local function vec_arg(a, idx)
  if not VDT[a.dtype] or a.rank ~= #idx or a.rank == 0 then return false end
  if idx[a.rank] ~= VTOK or a.strides[a.rank] ~= 1 then return false end
  if a.offset % V ~= 0 then return false end
  for k = 1, a.rank - 1 do
    if idx[k]:find("J", 1, true) then return false end
    if a.shape[k] ~= 1 and a.strides[k] % V ~= 0 then return false end
  end
  return true
end

-- idx with the run's first element in place of element J
local function run_start(idx)
  local i0 = {}
  for k, x in ipairs(idx) do i0[k] = x end
  i0[#i0] = "rv"
  return i0
end

-- VEC = 8 is possible: CUDA, the outputs of one shape, its last axis whole
-- runs of V
local function vec_shape(spec)
  if spec.backend ~= "cuda" then return nil end
  local shape
  for _, o in ipairs(spec.outputs) do
    if shape and table.concat(shape, ",") ~= table.concat(o.shape, ",") then return nil end
    shape = o.shape
  end
  if not shape or #shape == 0 or shape[#shape] % V ~= 0 then return nil end
  return shape
end

-- order = tile is possible: at most two outputs (a tile of floats each in
-- shared memory), all of one shape of rank 2 or more
local function tile_shape(spec)
  local shape
  if #spec.outputs > 2 then return nil end
  for _, o in ipairs(spec.outputs) do
    if shape and table.concat(shape, ",") ~= table.concat(o.shape, ",") then return nil end
    shape = o.shape
  end
  if not shape or #shape < 2 then return nil end
  return shape
end
local tile_pays   -- (below the generator)

-- order = tile with VEC = 8: CUDA, the last two axes whole runs of 8, every
-- output moved 16 bytes at a time
local function tile_vec(spec)
  local shape = tile_shape(spec)
  if spec.backend ~= "cuda" or not shape then return false end
  if shape[#shape] % V ~= 0 or shape[#shape - 1] % V ~= 0 then return false end
  for _, o in ipairs(spec.outputs) do
    if not VDT[o.dtype] then return false end
  end
  return true
end

local function largest(spec)
  local n = 0
  for _, o in ipairs(spec.outputs) do
    if o.numel > n then n = o.numel end
  end
  return n
end

function T.supports(spec)
  local ok = { neg = 1, exp = 1, log = 1, sqrt = 1, rsqrt = 1, abs = 1, tanh = 1,
    sigmoid = 1, relu = 1, silu = 1, gelu = 1, atan = 1, softsign = 1,
    leaky_relu = 1, erf = 1, cast = 1, dropout = 1, add = 1, sub = 1, mul = 1,
    div = 1, maximum = 1, minimum = 1, pow = 1, prelu = 1, masked_fill = 1,
    transpose = 1, unsqueeze = 1, reshape = 1, split = 1, concat = 1 }
  for _, n in ipairs(spec.nodes) do
    if not ok[n.op] then return false, "op " .. n.op .. " is not elementwise" end
  end
  return true
end

function T.constraints(spec, cfg)
  if cfg.BLOCK > spec.limits.threads then
    return false, "BLOCK over the device's threads per block"
  end
  if cfg.order == "tile" then
    if cfg.ITEMS > 1 then return false, "tile: ITEMS = 1" end
    if cfg.VEC > 1 and not tile_vec(spec) then
      return false, "tile VEC: CUDA, the last two axes and every output's dtype runs of 8 in 16 bytes"
    end
    if not tile_shape(spec) then
      return false, "tile: at most two outputs, of one shape of rank 2 or more"
    end
    if not tile_pays(spec) then
      return false, "tile: no argument runs along the outputs' second-last axis"
    end
    return true
  end
  -- more items per thread than elements only wastes threads
  if cfg.ITEMS > 1 and largest(spec) < cfg.BLOCK * cfg.ITEMS * cfg.VEC then
    return false, "fewer elements than one block covers"
  end
  if cfg.VEC > 1 and not vec_shape(spec) then
    return false, "VEC: CUDA, outputs of one shape whose last axis is a multiple of 8"
  end
  return true
end

function T.launch(spec, cfg)
  if cfg.order == "tile" then
    local shape = tile_shape(spec)
    local r = #shape
    local n = kg.cdiv(shape[r - 1], TS) * kg.cdiv(shape[r], TS)
    for k = 1, r - 2 do n = n * shape[k] end
    return { grid = { n, 1, 1 }, block = { cfg.BLOCK, 1, 1 }, smem = 0 }
  end
  local n = largest(spec)
  return { grid = { math.max(1, kg.cdiv(n, cfg.BLOCK * cfg.ITEMS * cfg.VEC)), 1, 1 },
           block = { cfg.BLOCK, 1, 1 }, smem = 0 }
end

-- the generator -------------------------------------------------------------

local function producers(spec)
  local by = {}
  for ni, n in ipairs(spec.nodes) do
    for r, v in ipairs(n.results) do by[v] = { node = n, result = r, index = ni } end
  end
  return by
end

-- index list of operand `a` (values[a]) when its consumer `v` is at idx
local function broadcast(spec, v, a, idx)
  local va, vv = spec.values[a], spec.values[v]
  local out = {}
  for j = 1, va.rank do
    local k = j + vv.rank - va.rank
    out[j] = va.shape[j] == 1 and "0" or idx[k]
  end
  return out
end

local Gen = {}
Gen.__index = Gen

-- index arithmetic in 32 bits where every index fits: a 64-bit division by
-- a constant is a dozen instructions, a 32-bit one three, and an
-- elementwise kernel over a [B, C, T] view spends more on them than on
-- its loads
local function new_gen(spec)
  local narrow = true
  for _, v in ipairs(spec.values) do
    local n = 1
    for _, d in ipairs(v.shape or {}) do n = n * d end
    if n >= 2 ^ 31 then narrow = false end
  end
  return setmetatable({ spec = spec, prod = producers(spec), lines = {},
                        memo = {}, ntemp = 0, indent = "      ",
                        itype = narrow and "unsigned" or "long",
                        isfx = narrow and "u" or "L" }, Gen)
end

function Gen:emit(s) self.lines[#self.lines + 1] = self.indent .. s end

function Gen:temp(prefix)
  self.ntemp = self.ntemp + 1
  return prefix .. self.ntemp
end

-- split a linear index expression into the axes of shape
function Gen:delinearize(lin, shape)
  local idx, rest = {}, lin
  for j = #shape, 1, -1 do
    if shape[j] == 1 then
      idx[j] = "0"
    elseif j == 1 then
      idx[j] = rest
    else
      local t = self:temp("q")
      self:emit(string.format("%s %s = (%s)%s;", self.itype, t, self.itype, rest))
      idx[j] = "(" .. t .. " % " .. shape[j] .. self.isfx .. ")"
      rest = "(" .. t .. " / " .. shape[j] .. self.isfx .. ")"
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

-- C expression (float) of value v at index idx (a list of C expressions)
function Gen:value(v, idx)
  local spec = self.spec
  local val = spec.values[v]
  if val.const then return kg.float(val.const) end
  local key = v .. "|" .. table.concat(idx, ",")
  if self.memo[key] then return self.memo[key] end
  local p = self.prod[v]
  local e
  if not p then
    local a = spec.args[val.arg]
    if self.reads then self.reads[#self.reads + 1] = { arg = a, idx = idx } end
    -- (not under a concat's branch: a run hoisted out of it would read
    -- the other branches' rows, out of the argument's range)
    if self.pre and (self.branch or 0) == 0 and vec_arg(a, idx) then
      -- one run of V elements, loaded once before the loop over J
      local vkey = val.arg .. "|" .. table.concat(idx, ",")
      local vn = self.vmemo[vkey]
      if not vn then
        vn = self:temp("v")
        self.vmemo[vkey] = vn
        self.nvec = self.nvec + 1
        local i0 = run_start(idx)
        local ct = kg.ctype(spec, a.dtype)
        self.pre[#self.pre + 1] = string.format("__align__(16) %s %s[%d];", ct, vn, V)
        for c = 0, VDT[a.dtype] * V // 16 - 1 do
          self.pre[#self.pre + 1] = string.format(
            "((uint4 *)%s)[%d] = ((const uint4 *)(%s + (%s)))[%d];", vn, c, a.cname,
            kg.offset(a, i0), c)
        end
      end
      e = kg.load(spec, a.dtype, vn, "J")
    else
      if self.pre and table.concat(idx, ","):find("J", 1, true) then self.nscalar = self.nscalar + 1 end
      e = kg.load(spec, a.dtype, a.cname, kg.offset(a, idx))
    end
  else
    e = self:node(p.node, p.result, v, idx)
  end
  local t = self:temp("t")
  self:emit(string.format("float %s = %s;", t, e))
  self.memo[key] = t
  return t
end

function Gen:node(n, r, v, idx)
  local spec, op, at = self.spec, n.op, n.attrs
  local args = n.args
  if op == "transpose" then
    local i = {}
    for j, x in ipairs(idx) do i[j] = x end
    i[at.dim0 + 1], i[at.dim1 + 1] = idx[at.dim1 + 1], idx[at.dim0 + 1]
    return self:value(args[1], i)
  elseif op == "unsqueeze" then
    local i = {}
    for j, x in ipairs(idx) do if j ~= at.axis + 1 then i[#i + 1] = x end end
    return self:value(args[1], i)
  elseif op == "reshape" then
    local src = spec.values[args[1]]
    local lin = self:temp("l")
    self:emit(string.format("long %s = %s;", lin, self:linearize(idx, spec.values[v].shape)))
    return self:value(args[1], self:delinearize(lin, src.shape))
  elseif op == "split" then
    local off = 0
    for k = 1, r - 1 do off = off + spec.values[n.results[k]].shape[at.axis + 1] end
    local i = {}
    for j, x in ipairs(idx) do i[j] = x end
    if off ~= 0 then i[at.axis + 1] = "(" .. idx[at.axis + 1] .. " + " .. off .. "L)" end
    return self:value(args[1], i)
  elseif op == "concat" then
    -- pick the source by range; each branch computes into one temporary
    local ax = at.axis + 1
    local t = self:temp("c")
    self:emit(string.format("float %s;", t))
    local lo = 0
    local saved_memo, saved_indent = self.memo, self.indent
    self.branch = (self.branch or 0) + 1
    for k, a in ipairs(args) do
      local size = spec.values[a].shape[ax]
      local cond = k == #args and "" or
        string.format("if (%s < %dL) ", idx[ax], lo + size)
      self:emit((k == 1 and "" or "else ") .. cond .. "{")
      self.indent = saved_indent .. "  "
      self.memo = setmetatable({}, { __index = saved_memo })
      local i = {}
      for j, x in ipairs(idx) do i[j] = x end
      if lo ~= 0 then i[ax] = "(" .. idx[ax] .. " - " .. lo .. "L)" end
      self:emit(string.format("%s = %s;", t, self:value(a, i)))
      self.indent = saved_indent
      self.memo = saved_memo
      self:emit("}")
      lo = lo + size
    end
    self.branch = self.branch - 1
    return t
  elseif op == "masked_fill" then
    local x = self:value(args[1], broadcast(spec, v, args[1], idx))
    local m = self:value(args[2], broadcast(spec, v, args[2], idx))
    return string.format("((%s) != 0.0f ? %s : %s)", m, kg.float(at.value), x)
  elseif op == "prelu" then
    local x = self:value(args[1], broadcast(spec, v, args[1], idx))
    local aval = spec.values[args[2]]
    local ai = aval.shape[1] == 1 and "0" or idx[at.axis + 1]
    local a = self:value(args[2], { ai })
    return string.format("((%s) >= 0.0f ? (%s) : (%s) * (%s))", x, x, a, x)
  elseif #args == 2 then
    local a = self:value(args[1], broadcast(spec, v, args[1], idx))
    local b = self:value(args[2], broadcast(spec, v, args[2], idx))
    return kg.binary(spec, op, a, b)
  else
    local x = self:value(args[1], broadcast(spec, v, args[1], idx))
    return kg.unary(spec, op, x, at)
  end
end

-- the value id of each output argument
local function output_values(spec)
  local by = {}
  for id, val in ipairs(spec.values) do
    if val.arg and spec.args[val.arg].output then by[val.arg] = id end
  end
  return by
end

-- append to L a run of V elements: the runs loaded before an unrolled loop
-- over its elements J (g's lines), then `post` (the runs stored)
local function run_loop(L, g, post)
  for _, l in ipairs(g.pre) do L[#L + 1] = "    " .. l end
  L[#L + 1] = "    #pragma unroll"
  L[#L + 1] = string.format("    for (int J = 0; J < %d; J++) {", V)
  for _, l in ipairs(g.lines) do L[#L + 1] = l end
  L[#L + 1] = "    }"
  for _, l in ipairs(post) do L[#L + 1] = l end
end

-- does order = tile pay: are more of the arguments' elements read with
-- stride 1 along the outputs' second-last axis than along the last?
-- (the constraints ask once a config; the answer is the spec's, so it is
-- kept by spec as vec_pays below is)
local tile_memo = setmetatable({}, { __mode = "k" })
local function tile_reads_across(spec)
  local shape = tile_shape(spec)
  if not shape then return false end
  local g = new_gen(spec)
  local ov = output_values(spec)
  local idx = {}
  for k = 1, #shape - 2 do idx[k] = "o" .. k end
  idx[#shape - 1], idx[#shape] = "tp", "tq"
  g.reads = {}
  for _, o in ipairs(spec.outputs) do g:value(ov[o.index], idx) end
  local along = { tp = 0, tq = 0 }
  for _, r in ipairs(g.reads) do
    for k = 1, r.arg.rank do
      local i = r.idx[k]
      if r.arg.strides[k] == 1 and r.arg.shape[k] > 1 and along[i] then
        along[i] = along[i] + kg.numel(r.arg.shape)
      end
    end
  end
  return along.tp > along.tq
end
tile_pays = function(spec)
  if tile_memo[spec] == nil then tile_memo[spec] = tile_reads_across(spec) end
  return tile_memo[spec]
end

-- the body of order = tile: the block's tile computed along the second-last
-- axis into shared memory, then stored along the last.  vec (VEC = 8): a
-- work-item takes 8 consecutive elements in each pass, its arguments' runs
-- along the second-last axis loaded 16 bytes at a time (as VEC = 8 does
-- along the last) and its output runs stored so
local function emit_tile(spec, ov, shape, vec)
  local g = new_gen(spec)
  g.indent = "  "
  local r = #shape
  local P, Q = shape[r - 1], shape[r]
  local np, nq = kg.cdiv(P, TS), kg.cdiv(Q, TS)
  local whole = P % TS == 0 and Q % TS == 0
  local outer = {}
  for k = 1, r - 2 do outer[k] = shape[k] end
  g:emit(string.format("KG_SHARED float kg_tile[%d];", #spec.outputs * TS * (TS + 1)))
  -- (the block index in 32 bits: a grid is under 2^31 blocks)
  g:emit("const unsigned kg_b = (unsigned)KG_BID(0);")
  g:emit(string.format("const unsigned q0 = (kg_b %% %du) * %du;", nq, TS))
  g:emit(string.format("const unsigned p0 = ((kg_b / %du) %% %du) * %du;", nq, np, TS))
  local idx = r > 2 and g:delinearize(string.format("(kg_b / %du)", nq * np), outer) or {}
  local head = g.lines
  local n = vec and V or 1        -- elements a work-item takes in a pass
  local runs = TS // n            -- runs of n along a tile's side
  -- (pass 1 along p, pass 2 along q: the work-item's run and its column)
  local function pass(first)
    g.lines, g.memo = {}, {}
    g.indent = vec and "      " or "    "
    if vec then g.pre, g.vmemo, g.nvec, g.nscalar = {}, {}, 0, 0 else g.pre = nil end
    local i = {}
    for k = 1, r - 2 do i[k] = idx[k] end
    local run = vec and VTOK or (first and "tp" or "tq")
    i[r - 1], i[r] = first and run or "tp", first and "tq" or run
    -- the run's element within the tile: column (e / runs), row (e % runs) * n (+ J)
    local along = vec and string.format("(e %% %du) * %du + J", runs, n) or string.format("e %% %du", TS)
    local at = first and string.format("(e / %du) * %du + %s", runs, TS + 1, along)
                      or string.format("(%s) * %du + e / %du", along, TS + 1, runs)
    local post = {}
    for k, o in ipairs(spec.outputs) do
      local slot = string.format("kg_tile[%d + %s]", (k - 1) * TS * (TS + 1), at)
      if first then
        g:emit(string.format("%s = %s;", slot, g:value(ov[o.index], i)))
      elseif vec then
        local on = g:temp("o")
        g.pre[#g.pre + 1] = string.format("__align__(16) %s %s[%d];", kg.ctype(spec, o.dtype), on, V)
        g:emit(kg.store(spec, o.dtype, on, "J", slot))
        local i0 = run_start(i)
        for c = 0, VDT[o.dtype] * V // 16 - 1 do
          post[#post + 1] = "    " .. kg.st16(spec, string.format("(uint4 *)(%s + (%s)) + %d", o.cname,
            kg.offset(o, i0), c), string.format("((const uint4 *)%s)[%d]", on, c))
        end
      else
        g:emit(kg.store(spec, o.dtype, o.cname, kg.offset(o, i), slot))
      end
    end
    local L = {}
    L[#L + 1] = string.format("  for (unsigned e = (unsigned)KG_TID(0); e < %du; e += BLOCK) {", runs * TS)
    local first_of_run = string.format("%s0 + (e %% %du) * %du", first and "p" or "q", runs, n)
    local column = string.format("%s0 + e / %du", first and "q" or "p", runs)
    local rname = vec and "rv" or (first and "tp" or "tq")
    L[#L + 1] = string.format("    const unsigned %s = %s, %s = %s;", rname, first_of_run,
      first and "tq" or "tp", column)
    if not whole then
      L[#L + 1] = string.format("    if (%s >= %du || %s >= %du) continue;", first and rname or "tp", P,
        first and "tq" or rname, Q)
    end
    if vec then
      run_loop(L, g, post)
    else
      for _, l in ipairs(g.lines) do L[#L + 1] = l end
    end
    L[#L + 1] = "  }"
    return L
  end
  local L = {}
  for _, l in ipairs(head) do L[#L + 1] = l end
  for _, l in ipairs(pass(true)) do L[#L + 1] = l end
  L[#L + 1] = "  KG_BARRIER();"
  for _, l in ipairs(pass(false)) do L[#L + 1] = l end
  return table.concat(L, "\n")
end

-- the body of VEC = 8: the run's index split once, runs loaded before an
-- unrolled loop over its elements J, runs stored after it
local function emit_vec(spec, ov, shape)
  local g = new_gen(spec)
  g.indent = "    "
  local n = kg.numel(shape)
  local idx = g:delinearize("i0", shape)
  g:emit(string.format("const %s rv = %s;", g.itype, idx[#idx]))
  idx[#idx] = VTOK
  local head = g.lines
  g.lines, g.pre, g.vmemo, g.nvec, g.nscalar = {}, {}, {}, 0, 0
  g.indent = "      "
  local post = {}
  for _, o in ipairs(spec.outputs) do
    local x = g:value(ov[o.index], idx)
    if vec_arg(o, idx) then
      g.nvec = g.nvec + 1
      local on = g:temp("o")
      local ct = kg.ctype(spec, o.dtype)
      g.pre[#g.pre + 1] = string.format("__align__(16) %s %s[%d];", ct, on, V)
      g:emit(kg.store(spec, o.dtype, on, "J", x))
      local i0 = run_start(idx)
      for c = 0, VDT[o.dtype] * V // 16 - 1 do
        post[#post + 1] = "    " .. kg.st16(spec, string.format("(uint4 *)(%s + (%s)) + %d", o.cname, kg.offset(o, i0), c),
          string.format("((const uint4 *)%s)[%d]", on, c))
      end
    else
      g.nscalar = g.nscalar + 1
      g:emit(kg.store(spec, o.dtype, o.cname, kg.offset(o, idx), x))
    end
  end
  local L = {}
  L[#L + 1] = string.format("    const long i0 = item * %d;", V)
  L[#L + 1] = string.format("    if (i0 >= %dL) break;", n)
  for _, l in ipairs(head) do L[#L + 1] = l end
  run_loop(L, g, post)
  return table.concat(L, "\n"), g.nvec, g.nscalar
end

-- a rough cost, lower first (the tuner's first samples): the tile where
-- the constraints let it (it pays wherever they do), VEC = 8 where most of
-- the accesses along the run move 16 bytes at a time, mid-sized blocks,
-- few items
local vec_pays = setmetatable({}, { __mode = "k" })   -- by spec
function T.rank(spec, cfg)
  local r = (cfg.BLOCK == 256 or cfg.BLOCK == 128) and 0 or 0.25
  r = r + (cfg.ITEMS - 1) * 0.05
  if cfg.order == "tile" then return r - 1 - (cfg.VEC > 1 and 0.5 or 0) end
  if cfg.VEC > 1 then
    if vec_pays[spec] == nil then
      local _, nv, ns = emit_vec(spec, output_values(spec), vec_shape(spec))
      vec_pays[spec] = nv >= 2 * ns and nv > 0
    end
    return r + (vec_pays[spec] and 0 or 2)
  end
  return r + 1
end

function T.emit(spec, design)
  local out = { kg.prelude(spec), kg.minmax(spec) }
  local g = new_gen(spec)
  local ov = output_values(spec)
  if design.order == "tile" then
    out[#out + 1] = kg.line()
    out[#out + 1] = string.format([[
KG_KERNEL void %s(
    %s)
{
  KG_GRID_DEP();
#if VEC > 1
%s
#else
%s
#endif
}
]], spec.kernel, kg.params(spec),
      tile_vec(spec) and emit_tile(spec, ov, tile_shape(spec), true) or "#error VEC: a tile of runs of 8",
      emit_tile(spec, ov, tile_shape(spec), false))
    return table.concat(out, "\n")
  end
  for _, o in ipairs(spec.outputs) do
    local v = ov[o.index]
    g:emit(string.format("if (i < %dL) { %s", o.numel, kg.comment(o.name)))
    local saved = g.indent
    g.indent = saved .. "  "
    g.memo = {}
    local idx = g:delinearize("i", o.shape)
    local x = g:value(v, idx)
    g:emit(kg.store(spec, o.dtype, o.cname, kg.offset(o, idx), x))
    g.indent = saved
    g:emit("}")
  end
  local shape = vec_shape(spec)
  local vec = shape and emit_vec(spec, ov, shape)
  out[#out + 1] = kg.line()
  out[#out + 1] = string.format([[
KG_KERNEL void %s(
    %s)
{
  KG_GRID_DEP();
  long base = KG_BID(0) * KG_BDIM(0) * ITEMS + KG_TID(0);
#if VEC > 1
  for (int it = 0; it < ITEMS; it++) {
    const long item = base + (long)it * KG_BDIM(0);
%s
  }
#else
  for (int it = 0; it < ITEMS; it++) {
    long i = base + (long)it * KG_BDIM(0);
%s
  }
#endif
}
]], spec.kernel, kg.params(spec), vec or "#error VEC takes outputs of one shape",
    table.concat(g.lines, "\n"))
  return table.concat(out, "\n")
end

return T
