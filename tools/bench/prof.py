#!/usr/bin/env python3
"""tools/bench/prof.py -- where a kgen forward pass spends its time, kernel
by kernel, beside eager PyTorch on the same inputs (H200, through the
device tool).

  python3 tools/bench/prof.py LIBDIR [--once]

LIBDIR is a `kgen build` output (libfused.so, fused.h), such as one that
`bench.py measure` leaves in its OUT directory.  The forward pass and the
PyTorch model of tools/bench/bench.py run 20 times each under
torch.profiler (CUPTI); for each kernel of a call it prints the median
duration and the median gap before it, then the sum and the call's span,
and the do_bench medians of both.  Overlapping launches (KGRT_PDL, on by
default on sm_90) show as negative gaps and stretched durations: set
KGRT_PDL=0 to read the kernels' own times.  --once runs the forward once
(for ncu -k ...).
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench  # noqa: E402


def trace(f, label, n=20):
    import torch
    from torch.profiler import profile, ProfilerActivity
    for _ in range(5):
        f()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA,
                             ProfilerActivity.CPU]) as p:
        for _ in range(n):
            f()
        torch.cuda.synchronize()
    path = f"/tmp/kgen_prof_{label}.json"
    p.export_chrome_trace(path)
    with open(path) as fp:
        ev = json.load(fp)["traceEvents"]
    ks = sorted([e for e in ev if e.get("cat") == "kernel"],
                key=lambda e: e["ts"])
    per = len(ks) // n
    print(f"== {label}: {len(ks)} kernels, {per} per call")
    rows = {}
    for i, e in enumerate(ks):
        gap = e["ts"] - (ks[i - 1]["ts"] + ks[i - 1]["dur"]) if i else 0
        r = rows.setdefault(i % per, [e["name"][:60], [], []])
        r[1].append(e["dur"])
        if i >= per:                         # not the first call's first
            r[2].append(gap)
    tot = 0
    for j in sorted(rows):
        name, du, ga = rows[j]
        du = sorted(du)[len(du) // 2]
        ga = sorted(ga)[len(ga) // 2] if ga else 0
        tot += du
        print(f"  {j:2d} {du:8.2f} us  gap {ga:6.2f} us  {name}")
    span = sorted(ks[i * per + per - 1]["ts"] + ks[i * per + per - 1]["dur"] -
                  ks[i * per]["ts"] for i in range(n))
    print(f"  sum of kernels {tot:.2f} us; call span median "
          f"{span[n // 2]:.2f} us")


def main():
    import torch
    fused = bench.Fused(sys.argv[1])
    ins, outs = bench.make_inputs(fused)
    order = [a.name.decode() for a in fused.args if not a.output]
    call = fused.bind([ins[n] for n in order] + [t for _, t in outs])
    fn = bench.torch_models()[fused.name]
    d = fused.dims
    if "--once" in sys.argv:
        call()
        torch.cuda.synchronize()
        return
    trace(call, "kgen")
    trace(lambda: fn(ins, d), "eager")
    print("do_bench kgen", bench.do_bench(call),
          "eager", bench.do_bench(lambda: fn(ins, d)))


if __name__ == "__main__":
    main()
