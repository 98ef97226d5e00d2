#!/usr/bin/env python3
"""call 228: which kernels the power cap slows.  Each block's kgen forward
(call 227's c0 and l0, the tuned configs) and torch.compile's, traced
kernel by kernel (prof.py's trace) twice: 20 calls after 3 s idle (the
clocks high) and 400 calls after 2 s of sustained load (the clocks held
down by the 700 W cap), with nvidia-smi's SM clock during each trace.

  python3 cap.py LIBDIR
"""
import os
import sys
import time

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "..", "tools", "bench"))
import bench  # noqa: E402
import prof  # noqa: E402
import torch  # noqa: E402

fused = bench.Fused(sys.argv[1])
ins, outs = bench.make_inputs(fused)
order = [a.name.decode() for a in fused.args if not a.output]
call = fused.bind([ins[n] for n in order] + [t for _, t in outs])
fn, d = bench.torch_models()[fused.name], fused.dims
comp = torch.compile(lambda: fn(ins, d))
comp()
call()
torch.cuda.synchronize()
clocks = bench.Clocks()
for label, f in (("kgen", call), ("compile", comp)):
    for state in ("idle", "loaded"):
        if state == "idle":
            time.sleep(3)
        else:
            bench.keep_busy(f, 2)
        t0 = time.time()
        prof.trace(f, f"{label}-{state}", n=20 if state == "idle" else 400)
        t1 = time.time()
        time.sleep(0.3)
        print("   ", bench.clock_stats(clocks.samples, t0 - 0.1, t1), flush=True)
clocks.stop()
