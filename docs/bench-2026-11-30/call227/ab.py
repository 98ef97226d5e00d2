#!/usr/bin/env python3
"""call 227: one block built with different GEMM configs (each a winner
set by hand in a copy of call 225's DB, every config a trial that DB
validated), timed in turn beside torch.compile, 5 rounds, with and
without --settle's 1 s of sustained load before each timing, each
timing tagged with nvidia-smi's SM clock.  Does a config that loses at
the tuner's clocks (1980 MHz) win under the power cap?

  python3 ab.py OUT NAME=LIBDIR...
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "..", "tools", "bench"))
import bench  # noqa: E402
import torch  # noqa: E402

out, variants = sys.argv[1], [a.split("=", 1) for a in sys.argv[2:]]
models = bench.torch_models()
runs, res = [], {"variants": dict(variants), "check": {}}
ref = None
for name, libdir in variants:
    fused = bench.Fused(libdir)
    ins, outs = bench.make_inputs(fused)
    order = [a.name.decode() for a in fused.args if not a.output]
    call = fused.bind([ins[n] for n in order] + [t for _, t in outs])
    call()
    torch.cuda.synchronize()
    fn, d = models[fused.name], fused.dims
    if ref is None:
        ref = fn({k: (v.float() if v.is_floating_point() else v)
                  for k, v in ins.items()}, d)
        c = torch.compile(lambda: fn(ins, d))
        c()
    g, want = outs[-1][1].float(), ref[-1]
    res["check"][name] = ((g - want).norm() / want.norm()).item()
    runs.append((name, call))
runs.append(("compile", c))
clocks = bench.Clocks()
for settle in (0, 1):
    windows = []
    ms, rounds = bench.in_turn(
        runs, 5, windows=windows,
        settle=(lambda f: bench.keep_busy(f, settle)) if settle else None)
    import time
    time.sleep(0.3)
    res[f"settle{settle}"] = {
        "ms": ms, "ms_rounds": rounds,
        "clocks": {lb: [bench.clock_stats(clocks.samples, t0, t1)
                        for l2, _, t0, t1 in windows if l2 == lb]
                   for lb, _ in runs}}
    print(f"settle {settle}: " + ", ".join(
        f"{lb} {ms[lb]:.4f} ms (" + "/".join(
            str(c["mhz"]) if c else "-"
            for c in res[f"settle{settle}"]["clocks"][lb]) + " MHz)"
        for lb, _ in runs), flush=True)
clocks.stop()
print("rel-L2 against fp32:", {k: f"{v:.1e}" for k, v in res["check"].items()})
with open(out, "w") as f:
    json.dump(res, f, indent=1)
