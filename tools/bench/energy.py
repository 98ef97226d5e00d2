#!/usr/bin/env python3
"""tools/bench/energy.py -- the joules of each kernel of kgen builds, alone,
beside cuBLAS's GEMMs and a plain copy (H200, through the device tool).

  python3 tools/bench/energy.py LIBDIR... [--cublas MxKxN[,MxKxN...]]

Each kernel of each LIBDIR (a `kgen build` output) is called through its
typed launcher in fused.h, on tensors made from the launchers' comments
(each argument's shape and, for a view, strides and offset; one buffer per
name, so a kernel reads what the one before it wrote: the kernels run once
in plan order first), then
  idle:   after 2 s idle, 20 calls timed by CUDA events (no L2 flush);
  loaded: after 2 s of calls back to back, 1 s more of calls counted,
          nvidia-smi's SM clock and power sampled meanwhile;
and the energy of a call is the mean power times the loaded time of a
call.  Under a sustained load the H200 holds 700 W by lowering the SM
clock, so there a kernel's time is its joules (docs/performance.md,
attempt 43).  --cublas adds torch's linear (bias, no activation) at each
M x K x N; a 100 MB copy is measured last, the price of bytes moved.
"""
import ctypes
import math
import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench  # noqa: E402

# "name f16[d,...]" with " strides [s,...] offset o" for a view
SPEC = re.compile(r"(\S+) (bool|i32|f16|bf16|f32)\[([\d,]+)\]"
                  r"(?: strides \[([\d,]+)\] offset (\d+))?")
SIZE = {"bool": 1, "i32": 4, "f16": 2, "bf16": 2, "f32": 4}


def kernels(header):
    """The launchers of a fused.h's text: [(kernel, launcher, [(name,
    dtype, shape, strides or None, offset)])] in the header's order.  A
    launcher whose comment names other than its parameters' count of
    tensors is an error: the header's format has changed."""
    out = []
    for m in re.finditer(r"\* (k\d+_\w+): .*?\n \* variant 0: (.*?)\n.*?"
                         r"\nint (\w+_k\d+_\w+)\((.*?)\);", header, re.S):
        args = [(n, dt, [int(v) for v in shape.split(",")],
                 [int(v) for v in st.split(",")] if st else None, int(off or 0))
                for n, dt, shape, st, off in SPEC.findall(m.group(2))]
        if len(args) != m.group(4).count("kgrt_tensor"):
            raise ValueError(f"{m.group(3)}: {len(args)} tensors in its "
                             f"comment, {m.group(4).count('kgrt_tensor')} "
                             "parameters")
        out.append((m.group(1), m.group(3), args))
    return out


def contiguous(shape):
    """The strides of a tensor of SHAPE laid out densely, row-major."""
    return [math.prod(shape[i + 1:]) for i in range(len(shape))]


def extents(ks):
    """Each name's buffer: its dtype and the elements its views reach."""
    bufs = {}
    for _, _, args in ks:
        for n, dt, shape, strides, off in args:
            strides = strides or contiguous(shape)
            need = off + 1 + sum((d - 1) * s for d, s in zip(shape, strides))
            bufs[n] = (dt, max(bufs.get(n, (dt, 0))[1], need))
    return bufs


def main():
    import argparse
    import torch
    ap = argparse.ArgumentParser()
    ap.add_argument("libdirs", nargs="+")
    ap.add_argument("--cublas", default="",
                    help="torch linear at these MxKxN, comma-separated")
    a = ap.parse_args()
    clocks = bench.Clocks()

    def measure(label, fn, work):
        time.sleep(2)
        e0 = torch.cuda.Event(enable_timing=True)
        e1 = torch.cuda.Event(enable_timing=True)
        fn()
        e0.record()
        for _ in range(20):
            fn()
        e1.record()
        torch.cuda.synchronize()
        idle = e0.elapsed_time(e1) / 20 * 1e3
        bench.keep_busy(fn, 2)
        t0 = time.time()
        n = bench.keep_busy(fn, 1)
        t1 = time.time()
        time.sleep(0.3)
        s = bench.samples_in(clocks.samples, t0, t1)
        mhz = sum(x[1] for x in s) / len(s) if s else float("nan")
        w = sum(x[2] for x in s) / len(s) if s else float("nan")
        loaded = (t1 - t0) / n * 1e6
        print(f"{label:34s} idle {idle:7.1f} us  loaded {loaded:7.1f} us "
              f"({loaded / idle - 1:+.0%})  {mhz:5.0f} MHz {w:4.0f} W  "
              f"{w * loaded * 1e-3:6.1f} mJ  {work}", flush=True)

    tdt = {"bool": torch.bool, "i32": torch.int32, "f16": torch.float16,
           "bf16": torch.bfloat16, "f32": torch.float32}
    for libdir in a.libdirs:
        fused = bench.Fused(libdir)
        with open(os.path.join(libdir, "fused.h")) as f:
            ks = kernels(f.read())
        g = torch.Generator(device="cuda").manual_seed(0)
        base = {}
        for n, (dt, size) in extents(ks).items():
            t = torch.rand(size, generator=g, device="cuda")
            if dt == "bool":
                base[n] = t < 0.2          # a mask: a fifth masked
            elif dt == "i32":
                base[n] = (t * 17 - 8).to(torch.int32)
            else:
                # weights and scales small, as bench.make_inputs makes them
                t = t * 2 - 1
                base[n] = (t / 16 if n.startswith(("w", "g")) else t).to(tdt[dt])
        calls = []
        for kname, launcher, kargs in ks:
            f = getattr(fused.lib, launcher)
            ts = [base[n].as_strided(shape, st or contiguous(shape), off)
                  for n, _, shape, st, off in kargs]
            ds = [bench.desc(t) for t in ts]
            ptrs = [ctypes.pointer(d) for d in ds]
            f.argtypes = [ctypes.c_void_p] + \
                [ctypes.POINTER(bench.Tensor)] * len(ds)

            def call(f=f, ptrs=ptrs, kname=kname):
                rc = f(fused.stream, *ptrs)
                if rc:
                    fused.check(rc, kname)
            call.keep = (ds, ptrs, ts)
            call()
            calls.append((kname, call, kargs))
        torch.cuda.synchronize()
        print(f"== {fused.name} ({libdir})", flush=True)
        for kname, call, kargs in calls:
            mb = sum(math.prod(x[2]) * SIZE[x[1]] for x in kargs) / 1e6
            measure(f"kgen {kname}", call, f"{mb:.0f} MB of operands")
    for spec in filter(None, a.cublas.split(",")):
        m, k, n = (int(v) for v in spec.split("x"))
        x = torch.randn(m, k, device="cuda").half()
        w = (torch.randn(n, k, device="cuda") / math.sqrt(k)).half()
        b = torch.randn(n, device="cuda").half()
        measure(f"cuBLAS linear {m}x{k}x{n}",
                lambda: torch.nn.functional.linear(x, w, b),
                f"{2 * m * k * n / 1e9:.0f} GFLOP")
    src = torch.randn(64 * 768 * 1024, device="cuda").half()
    dst = torch.empty_like(src)
    measure("copy 100 MB", lambda: dst.copy_(src), "201 MB moved")
    clocks.stop()


if __name__ == "__main__":
    main()
