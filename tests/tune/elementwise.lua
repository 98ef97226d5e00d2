-- tests/tune/elementwise.lua -- a deliberately faulty elementwise template
-- for tests/tune_faults.sh: y = x + 1 over f32[N], with a design knob that
-- makes a candidate wrong, uncompilable, hanging or crashing its worker.
-- Only the tests use it (through --templates), never the shipped set.
--
--   fault = none       correct
--           wrong      computes x + 2
--           nocompile  a syntax error
--           hang       an infinite loop (the worker's deadline must end it)
--           crash      writes far outside any buffer (SIGSEGV on PoCL)
--           partial    leaves the last element unwritten (the canary test)

local T = {
  name = "elementwise",
  backends = { "cuda", "opencl" },
  design = { fault = { "none", "wrong", "nocompile", "hang", "crash", "partial" } },
  tuning = { BLOCK = { 32, 64 } },
}

function T.supports(spec)
  if #spec.inputs ~= 1 or #spec.outputs ~= 1 then return nil, "one input" end
  return true
end

function T.constraints(spec, cfg)
  return true
end

function T.launch(spec, cfg)
  local n = spec.outputs[1].numel
  return { grid = { kg.cdiv(n, cfg.BLOCK), 1, 1 }, block = { cfg.BLOCK, 1, 1 },
           smem = 0 }
end

function T.emit(spec, design)
  local n = spec.outputs[1].numel
  local body = ({
    none = "if (i < N) y[i] = x[i] + 1.0f;",
    wrong = "if (i < N) y[i] = x[i] + 2.0f;",
    nocompile = "if (i < N) y[i] = x[i] + ;",
    hang = "volatile int s = 1; while (s) { s = 1; } if (i < N) y[i] = x[i];",
    crash = "KG_GLOBAL float *p = y + 4000000000L * (i + 1); p[0] = 1.0f;",
    partial = "if (i < N - 1) y[i] = x[i] + 1.0f;",
  })[design.fault]
  return table.concat({
    kg.prelude(spec), kg.line(),
    string.format([[
#define N %dL
KG_KERNEL void %s(KG_GLOBAL const float *x, KG_GLOBAL float *y)
{
  long i = KG_BID(0) * KG_BDIM(0) + KG_TID(0);
  %s
}
]], n, spec.kernel, body) }, "\n")
end

return T
