#!/usr/bin/env python3
"""call 231: the joules of each kernel of a kgen build, alone, beside
cuBLAS's GEMMs of the same shapes and a plain copy.  Each kernel is called
through its typed launcher (fused.h), on tensors made from the launchers'
comments (shape, strides, offset; the kernels run in plan order first, so
each reads what its producer wrote), then:
  idle:   after 2 s idle, 20 calls timed by CUDA events (no L2 flush),
  loaded: after 2 s back to back, 1 s more of calls counted, with
          nvidia-smi's SM clock and power sampled meanwhile;
energy a call = mean power x loaded time a call.

  python3 energy.py LIBDIR...
"""
import ctypes
import math
import os
import re
import sys
import time

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "..", "tools", "bench"))
import bench  # noqa: E402
import torch  # noqa: E402

SPEC = re.compile(r"(\S+) f16\[([\d,]+)\](?: strides \[([\d,]+)\] offset (\d+))?")


def kernels(libdir):
    """[(launcher, [(name, shape, strides, offset)])] in fused.h's order."""
    text = open(os.path.join(libdir, "fused.h")).read()
    out = []
    for m in re.finditer(r"\* (k\d+_\w+): .*?\n \* variant 0: (.*?)\n.*?\nint (\w+_k\d+_\w+)\(",
                         text, re.S):
        args = [(n, [int(v) for v in s.split(",")],
                 [int(v) for v in st.split(",")] if st else None, int(off or 0))
                for n, s, st, off in SPEC.findall(m.group(2))]
        out.append((m.group(1), m.group(3), args))
    return out


def tensors(ks):
    bufs = {}
    for _, _, args in ks:
        for n, shape, strides, off in args:
            if strides is None:
                strides = [math.prod(shape[i + 1:]) for i in range(len(shape))]
            need = off + 1 + sum((d - 1) * s for d, s in zip(shape, strides))
            bufs[n] = max(bufs.get(n, 0), need)
    g = torch.Generator(device="cuda").manual_seed(0)
    base = {}
    for n, size in bufs.items():
        t = torch.rand(size, generator=g, device="cuda") * 2 - 1
        base[n] = (t / 16 if n.startswith(("w", "g", "gamma")) else t).half()
    return base


def view(base, n, shape, strides, off):
    if strides is None:
        return base[n][off:off + math.prod(shape)].view(shape)
    return base[n].as_strided(shape, strides, off)


def clocks_in(samples, t0, t1):
    s = [x for x in samples if t0 <= x[0] <= t1]
    if not s:
        return float("nan"), float("nan")
    return sum(x[1] for x in s) / len(s), sum(x[2] for x in s) / len(s)


def measure(label, fn, clocks, work):
    time.sleep(2)
    e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    fn()
    e0.record()
    for _ in range(20):
        fn()
    e1.record()
    torch.cuda.synchronize()
    idle = e0.elapsed_time(e1) / 20 * 1e3
    bench.keep_busy(fn, 2)
    t0, n = time.time(), 0
    while time.time() - t0 < 1:
        for _ in range(8):
            fn()
        n += 8
        torch.cuda.synchronize()
    t1 = time.time()
    time.sleep(0.3)
    mhz, w = clocks_in(clocks.samples, t0, t1)
    loaded = (t1 - t0) / n * 1e6
    print(f"{label:34s} idle {idle:7.1f} us  loaded {loaded:7.1f} us ({loaded / idle - 1:+.0%})"
          f"  {mhz:5.0f} MHz {w:4.0f} W  {w * loaded * 1e-3:6.1f} mJ  {work}", flush=True)


clocks = bench.Clocks()
for libdir in sys.argv[1:]:
    fused = bench.Fused(libdir)
    ks = kernels(libdir)
    base = tensors(ks)
    calls = []
    for kname, launcher, args in ks:
        f = getattr(fused.lib, launcher)
        ts = [view(base, *a) for a in args]
        ds = [bench.desc(t) for t in ts]
        ptrs = [ctypes.pointer(d) for d in ds]
        f.argtypes = [ctypes.c_void_p] + [ctypes.POINTER(bench.Tensor)] * len(ds)

        def call(f=f, ptrs=ptrs, kname=kname):
            rc = f(fused.stream, *ptrs)
            if rc:
                fused.check(rc, kname)
        call.keep = (ds, ptrs, ts)
        call()
        calls.append((kname, call, args))
    torch.cuda.synchronize()
    print(f"== {fused.name} ({libdir})", flush=True)
    for kname, call, args in calls:
        mb = sum(math.prod(a[1]) * 2 for a in args) / 1e6
        measure(f"kgen {kname}", call, clocks, f"{mb:.0f} MB of operands")
# cuBLAS's GEMMs at the blocks' shapes (bias, no activation), and a copy
for m, k, n in ((49152, 512, 2048), (49152, 2048, 512), (49152, 1024, 2048), (49152, 1024, 1024)):
    a = torch.randn(m, k, device="cuda").half()
    w = (torch.randn(n, k, device="cuda") / math.sqrt(k)).half()
    b = torch.randn(n, device="cuda").half()
    measure(f"cuBLAS linear {m}x{k}x{n}", lambda: torch.nn.functional.linear(a, w, b), clocks,
            f"{2 * m * k * n / 1e9:.0f} GFLOP")
src = torch.randn(64 * 768 * 1024, device="cuda").half()
dst = torch.empty_like(src)
measure("copy 100 MB", lambda: dst.copy_(src), clocks, "201 MB moved")
clocks.stop()
