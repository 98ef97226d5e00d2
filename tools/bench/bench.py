#!/usr/bin/env python3
"""tools/bench/bench.py -- kgen beside PyTorch on one GPU, in one process.

  measure: for each workload, kgen tune + kgen build (sm_90, the kgen
           binary built elsewhere and carried to the GPU machine), load
           libfused.so with ctypes, make the inputs and weights the library
           declares as PyTorch tensors, check kgen's outputs against
           PyTorch in fp32 (relative L2, max-abs), and time kgen, PyTorch
           eager, torch.compile (default, max-autotune) and, for attention,
           each SDPA backend with triton.testing.do_bench (median, L2
           flushed), in turn, --rounds times (each figure the median of
           its rounds; --settle S (default 1) runs each contender S
           seconds back to back before each timing, so that every
           contender is timed at the clocks a sustained load holds;
           nvidia-smi's SM clock, power and throttle reasons sampled
           during each timing go in the JSON as "clocks").  One JSON per
           workload in OUT.  With --gpus N the
           workloads are spread over N GPUs of the host, one process each
           (CUDA_VISIBLE_DEVICES), all tuning into the one DB; --dry-run
           prints that split and runs nothing.
  render:  the JSONs of one or more OUT directories as one table, printed
           and written to docs/performance.md with the command and date.

  python3 tools/bench/bench.py measure --kgen build-dev-bin/kgen --out OUT \
      [--workloads NAME,...] [--budget N] [--no-max-autotune] [--rounds N]
      [--settle SECONDS] [--gpus N [--dry-run]]
  python3 tools/bench/bench.py render OUT... [--write docs/performance.md]
      [--command "..."] [--device NAME]
           (the newest result of each workload among the OUTs, on one
           device; a last column names each row's date and OUT when they
           differ)
  python3 tools/bench/bench.py list
"""
import argparse
import atexit
import ctypes
import json
import math
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))))
# dense fp16 GEMM: the fastest measured on the H200, kgen's own linear M=8192
# K=4096 N=16384 (docs/performance.md attempt 41); DESIGN.md 9's 684 was
# cuBLAS's, which kgen's kernels have passed, so it was no floor
PEAK_F16 = 724e12
PEAK_F32 = 67e12      # fp32 without tensor cores (the H200's data sheet)
PEAK_BW = 4.24e12     # device copy measured on the H200 (DESIGN.md 9)
TOL = {"f16": 1e-2, "bf16": 6e-2, "f32": 1e-4}   # whole blocks (build.md)


# ---- the PyTorch side of every model, op for op as in its .pat -------------

def torch_models():
    import torch
    import torch.nn.functional as F

    def gated_tanh_residual(p, d):
        C = d["C"]
        gate, filt = p["y"].split([C, C], dim=1)
        z = torch.sigmoid(gate) * torch.tanh(filt)
        o = F.conv1d(z, p["w"], p["b"])
        res, skip = o.split([C, C], dim=1)
        return [(p["x"] + res) * 0.7071067811865476, skip]

    def ln_gemm_gelu(p, d):
        h = F.layer_norm(p["x"], (d["K"],), p["gamma"], p["beta"], 1e-5)
        return [F.gelu(F.linear(h, p["w"], p["b"]))]

    def linear(p, d):
        return [F.linear(p["x"], p["w"], p["b"])]

    def sdpa_math(causal):
        def f(p, d):
            q, k, v = p["q"], p["k"], p["v"]
            s = (q @ k.transpose(2, 3)) * (1.0 / math.sqrt(d["D"]))
            if causal:
                T = q.shape[2]
                mask = torch.ones(T, T, dtype=torch.bool,
                                  device=q.device).tril()
                s = s.masked_fill(~mask, float("-inf"))
            return [torch.softmax(s, dim=-1) @ v]
        return f

    def wavenet_layer(p, d):
        C, DIL = d["C"], d["DIL"]
        s = F.linear(p["temb"], p["wd"], p["bd"])
        y = p["x"] + s.unsqueeze(2)
        y = F.conv1d(y, p["wdil"], p["bdil"], dilation=DIL, padding=DIL)
        y = y + F.conv1d(p["cond"], p["wc"], p["bc"])
        gate, filt = y.split([C, C], dim=1)
        z = torch.sigmoid(gate) * torch.tanh(filt)
        o = F.conv1d(z, p["wo"], p["bo"])
        res, skip = o.split([C, C], dim=1)
        return [(p["x"] + res) * 0.7071067811865476, skip]

    def lynxnet2_block(p, d):
        C = d["C"]
        h = F.layer_norm(p["x"], (C,), p["g"], p["b"], 1e-5)
        h = F.conv1d(h.transpose(1, 2), p["wdw"], p["bdw"], padding=15,
                     groups=C).transpose(1, 2)
        o1, g1 = F.linear(h, p["w1"], p["b1"]).split([C, C], dim=-1)
        h = o1 * torch.atan(g1)
        o2, g2 = F.linear(h, p["w2"], p["b2"]).split([C, C], dim=-1)
        h = o2 * torch.atan(g2)
        return [p["x"] + F.linear(h, p["w3"], p["b3"])]

    def convnext_block(p, d):
        C = d["C"]
        h = F.conv1d(p["x"], p["wdw"], p["bdw"], padding=3, groups=C)
        h = F.layer_norm(h.transpose(1, 2), (C,), p["g"], p["b"], 1e-6)
        h = F.gelu(F.linear(h, p["w1"], p["b1"]))
        h = F.linear(h, p["w2"], p["b2"]) * p["gamma"]
        return [p["x"] + h.transpose(1, 2)]

    def encoder_layer(p, d):
        B, L, C, NH, HD = d["B"], d["L"], d["C"], d["NH"], d["HD"]
        x, pad = p["x"], p["pad"]
        keep = (1.0 - pad.to(x.dtype)).unsqueeze(2)
        h = F.layer_norm(x, (C,), p["g1"], p["b1"], 1e-5)
        q, k, v = F.linear(h, p["wqkv"]).split([C, C, C], dim=-1)
        q, k, v = (t.reshape(B, L, NH, HD).transpose(1, 2) for t in (q, k, v))

        def rot(t):
            t1, t2 = t.split([HD // 2, HD // 2], dim=-1)
            return t * p["cosT"] + torch.cat([-t2, t1], dim=-1) * p["sinT"]
        q, k = rot(q), rot(k)
        s = (q @ k.transpose(2, 3)) * 0.07216878364870323
        s = s.masked_fill(pad.reshape(B, 1, 1, L), float("-inf"))
        a = torch.softmax(s, dim=-1) @ v
        a = F.linear(a.transpose(1, 2).reshape(B, L, C), p["wout"])
        x1 = (x + a) * keep
        h2 = F.layer_norm(x1, (C,), p["g2"], p["b2"], 1e-5)
        f = F.conv1d(h2.transpose(1, 2), p["wf1"], p["bf1"],
                     padding=1).transpose(1, 2)
        f = F.gelu(f * 0.5773502691896258)
        f = F.linear(f, p["wf2"], p["bf2"])
        return [(x1 + f) * keep]

    return {
        "gated_tanh_residual": gated_tanh_residual,
        "ln_gemm_gelu": ln_gemm_gelu,
        "linear": linear,
        "sdpa": sdpa_math(False),
        "sdpa_causal": sdpa_math(True),
        "wavenet_layer": wavenet_layer,
        "lynxnet2_block": lynxnet2_block,
        "convnext_block": convnext_block,
        "encoder_layer": encoder_layer,
    }


# ---- workloads: (name, model file, kgen options) ---------------------------

def workloads():
    w = [
        ("gated_tanh_residual B=32 C=512 T=1536 f16",
         "tools/bench/gated_tanh_residual.pat", []),
        ("ln_gemm_gelu M=49152 K=256 N=1024 f16",
         "tools/bench/ln_gemm_gelu.pat", []),
        ("ln_gemm_gelu M=8192 K=4096 N=16384 f16",
         "tools/bench/ln_gemm_gelu.pat",
         ["--dim", "M=8192", "--dim", "K=4096", "--dim", "N=16384"]),
        # the plain GEMM of the large ln_gemm_gelu's shape: what the
        # LayerNorm and the GELU cost on top of it
        ("linear M=8192 K=4096 N=16384 f16", "tools/bench/linear.pat", []),
    ]
    for causal in (False, True):
        for D in (128, 64):
            for T in (1024, 2048, 4096, 8192, 16384):
                B, H = (4, 16) if T <= 4096 else (1, 16)
                w.append((f"sdpa{' causal' if causal else ''} B={B} H={H} "
                          f"T={T} D={D} f16",
                          f"tools/bench/sdpa{'_causal' if causal else ''}.pat",
                          ["--dim", f"B={B}", "--dim", f"H={H}", "--dim",
                           f"T={T}", "--dim", f"D={D}"]))
    for m in ("wavenet_layer", "lynxnet2_block", "convnext_block",
              "encoder_layer"):
        w.append((f"{m} default dims f16", f"examples/{m}.pat", []))
    # (a layer of the stack's dilation cycle 1, 2, 4, 8 whose conv weight
    # kgen relays tap-major: docs/performance.md attempt 26)
    w.append(("wavenet_layer DIL=8 f16", "examples/wavenet_layer.pat", ["--dim", "DIL=8"]))
    inf = {"wavenet_layer": ["--dim", "B=1", "--dim", "T=861"],
           "lynxnet2_block": ["--dim", "B=1", "--dim", "T=861"],
           "convnext_block": ["--dim", "B=1", "--dim", "T=861"],
           "encoder_layer": ["--dim", "B=1", "--dim", "L=861"]}
    for m, dims in inf.items():
        w.append((f"{m} {' '.join(dims[1::2])} f32", f"examples/{m}.pat",
                  dims + ["--dtype", "DT=f32"]))
    return w


def slug(name):
    return "".join(c if c.isalnum() else "_" for c in name).strip("_")


# ---- the generated library, seen through ctypes ----------------------------

class Tensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("offset", ctypes.c_size_t),
                ("dtype", ctypes.c_int32), ("rank", ctypes.c_int32),
                ("shape", ctypes.c_int64 * 8), ("strides", ctypes.c_int64 * 8)]


class FArg(ctypes.Structure):        # kgrt_fused_arg
    _fields_ = [("name", ctypes.c_char_p), ("dtype", ctypes.c_int),
                ("rank", ctypes.c_int), ("output", ctypes.c_int),
                ("shape", ctypes.c_int64 * 8), ("strides", ctypes.c_int64 * 8),
                ("offset", ctypes.c_int64)]


class FVariant(ctypes.Structure):    # kgrt_fused_variant
    _fields_ = [("dims", ctypes.POINTER(ctypes.c_int64)),
                ("model_args", ctypes.POINTER(FArg)),
                ("workspace", ctypes.c_size_t), ("nsteps", ctypes.c_int),
                ("steps", ctypes.c_void_p)]


class FModel(ctypes.Structure):      # kgrt_fused_model
    _fields_ = [("name", ctypes.c_char_p), ("backend", ctypes.c_int),
                ("arch", ctypes.c_char_p), ("ndims", ctypes.c_int),
                ("dim_names", ctypes.POINTER(ctypes.c_char_p)),
                ("nargs", ctypes.c_int), ("noutputs", ctypes.c_int),
                ("nvariants", ctypes.c_int),
                ("variants", ctypes.POINTER(FVariant)),
                ("provenance", ctypes.c_char_p)]


DTYPES = ["bool", "i32", "f16", "bf16", "f32"]


def desc(t):
    """The kgrt_tensor of a PyTorch CUDA tensor (its view, as it is)."""
    d = Tensor()
    d.data = t.data_ptr()
    d.dtype = DTYPES.index({"torch.bool": "bool", "torch.int32": "i32",
                            "torch.float16": "f16", "torch.bfloat16": "bf16",
                            "torch.float32": "f32"}[str(t.dtype)])
    d.rank = t.dim()
    for i in range(t.dim()):
        d.shape[i] = t.shape[i]
        d.strides[i] = t.stride(i)
    return d


class Fused:
    """A libfused.so: its model table, a device, and a forward call."""

    def __init__(self, libdir):
        import torch
        self.lib = lib = ctypes.CDLL(os.path.join(libdir, "libfused.so"))
        lib.kgrt_last_error.restype = ctypes.c_char_p
        with open(os.path.join(libdir, "fused.h")) as f:
            name = next(l.split()[4][:-len("_model;")] for l in f
                        if l.startswith("extern const struct kgrt_fused_model"))
        self.name = name
        self.model = FModel.in_dll(lib, f"{name}_model")
        v = self.model.variants[0]
        self.dims = {self.model.dim_names[i].decode(): v.dims[i]
                     for i in range(self.model.ndims)}
        self.args = [v.model_args[i] for i in range(self.model.nargs)]
        self.workspace = v.workspace
        self.fwd = getattr(lib, f"{name}_forward_v")
        self.fwd.argtypes = [ctypes.c_void_p, ctypes.POINTER(Tensor),
                             ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t]
        dev = ctypes.c_void_p()
        self.check(lib.kgrt_device_open_default(0, ctypes.byref(dev)), "open")
        self.dev = dev
        self.stream = ctypes.c_void_p()
        lib.kgrt_stream_wrap.argtypes = [ctypes.c_void_p, ctypes.c_void_p,
                                         ctypes.POINTER(ctypes.c_void_p)]
        self.check(lib.kgrt_stream_wrap(
            dev, ctypes.c_void_p(torch.cuda.current_stream().cuda_stream),
            ctypes.byref(self.stream)), "stream")

    def check(self, rc, what):
        if rc != 0:
            raise RuntimeError(f"{what}: {rc}: "
                               f"{self.lib.kgrt_last_error().decode()}")

    def bind(self, tensors):
        """A call of the forward pass on these tensors (args order)."""
        import torch
        descs = [desc(t) for t in tensors]
        arr = (Tensor * len(descs))(*descs)
        ws = torch.empty(max(self.workspace, 1), dtype=torch.uint8,
                         device="cuda")
        n, wsp, wsn = len(descs), ctypes.c_void_p(ws.data_ptr()), \
            self.workspace

        def call():
            rc = self.fwd(self.stream, arr, n, wsp, wsn)
            if rc:
                self.check(rc, "forward")
        call.keep = (arr, ws, tensors)
        return call


def make_inputs(fused, seed=0):
    import torch
    g = torch.Generator(device="cuda").manual_seed(seed)
    tdt = {"bool": torch.bool, "i32": torch.int32, "f16": torch.float16,
           "bf16": torch.bfloat16, "f32": torch.float32}
    ins, outs = {}, []
    for a in fused.args:
        shape = [a.shape[i] for i in range(a.rank)]
        dt = tdt[DTYPES[a.dtype]]
        name = a.name.decode()
        if a.output:
            outs.append((name, torch.empty(shape, dtype=dt, device="cuda")))
            continue
        if dt == torch.bool:
            t = torch.rand(shape, generator=g, device="cuda") < 0.2
            t[..., 0] = False
        elif dt == torch.int32:
            t = torch.randint(-8, 9, shape, generator=g, device="cuda",
                              dtype=torch.int32)
        else:
            t = torch.rand(shape, generator=g, device="cuda") * 2 - 1
            if len(shape) >= 2 and not name.startswith(("x", "q", "k", "v",
                                                        "cond", "temb",
                                                        "cos", "sin", "y")):
                t = t / math.sqrt(math.prod(shape[1:]))
            t = t.to(dt)
        ins[name] = t.contiguous()
    return ins, outs


# ---- measure ------------------------------------------------------------------

def do_bench(fn):
    import triton.testing
    return triton.testing.do_bench(fn, warmup=25, rep=100,
                                   return_mode="median")


def keep_busy(fn, seconds):
    """Run fn back to back for SECONDS, so that the GPU's clocks and power
    reach the state a sustained load holds them in before fn is timed;
    returns how many calls ran."""
    import torch
    end, n = time.time() + seconds, 0
    while time.time() < end:
        for _ in range(8):
            fn()
        n += 8
        torch.cuda.synchronize()
    return n


def in_turn(runs, rounds, bench=do_bench, settle=None, windows=None):
    """Time the (label, fn) runs in turn, ROUNDS times over: each label's
    figure the median of its rounds; returns (figures, every round's).
    With SETTLE, settle(fn) runs just before each timing; WINDOWS, a list,
    gets (label, round, wall-clock start, end) of each timing."""
    got = {label: [] for label, _ in runs}
    for i in range(rounds):
        for label, fn in runs:
            if settle:
                settle(fn)
            t0 = time.time()
            got[label].append(bench(fn))
            if windows is not None:
                windows.append((label, i, t0, time.time()))
    return {label: statistics.median(v) for label, v in got.items()}, got


# ---- the GPU's clocks while each contender is timed --------------------------
# Under a sustained load the H200 holds its power cap (700 W) by lowering
# the SM clock, from 1980 MHz to 1275-1900 MHz (docs/performance.md,
# attempt 43), and a kernel's time scales with it: each timing is tagged
# with the clocks nvidia-smi sampled during it.

SMI_FIELDS = "timestamp,clocks.sm,power.draw.instant,clocks_event_reasons.active"


def smi_sample(line):
    """One nvidia-smi CSV line (SMI_FIELDS, noheader, nounits) as (wall
    clock seconds, SM MHz, watts, event reasons); None if it is no sample."""
    f = [x.strip() for x in line.split(",")]
    if len(f) != 4:
        return None
    try:
        t = time.mktime(time.strptime(f[0].split(".")[0],
                                      "%Y/%m/%d %H:%M:%S"))
        frac = float("0." + f[0].split(".")[1]) if "." in f[0] else 0.0
        return (t + frac, float(f[1]), float(f[2]), int(f[3], 16))
    except (ValueError, IndexError):
        return None


def samples_in(samples, t0, t1):
    """The nvidia-smi samples taken in [t0, t1] (wall clock)."""
    return [x for x in samples if t0 <= x[0] <= t1]


def clock_stats(samples, t0, t1):
    """The samples taken in [t0, t1]: mean and lowest SM clock, highest
    power, the event reasons seen (OR); None when none fell there."""
    s = samples_in(samples, t0, t1)
    if not s:
        return None
    reasons = 0
    for x in s:
        reasons |= x[3]
    return {"mhz": round(sum(x[1] for x in s) / len(s)),
            "mhz_min": round(min(x[1] for x in s)),
            "w_max": round(max(x[2] for x in s)),
            "reasons": hex(reasons), "samples": len(s)}


class Clocks:
    """nvidia-smi sampling this process's GPU every 100 ms in the
    background (timestamps are nvidia-smi's, wall clock in local time)."""

    def __init__(self):
        import threading
        vis = os.environ.get("CUDA_VISIBLE_DEVICES", "0").split(",")[0]
        self.samples = []
        fields = SMI_FIELDS
        try:
            # drivers before R530 know no instant power: the average then
            if subprocess.run(["nvidia-smi", "-i", vis or "0",
                               "--query-gpu=power.draw.instant",
                               "--format=csv,noheader"],
                              capture_output=True).returncode:
                fields = fields.replace("power.draw.instant", "power.draw")
            self.p = subprocess.Popen(
                ["nvidia-smi", "-i", vis or "0", "--query-gpu=" + fields,
                 "--format=csv,noheader,nounits", "-lms", "100"],
                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        except OSError:
            self.p = None
            return
        self.t = threading.Thread(target=self._read, daemon=True)
        self.t.start()
        atexit.register(self.stop)      # an exception does not leave it running

    def _read(self):
        for line in self.p.stdout:
            x = smi_sample(line)
            if x:
                self.samples.append(x)

    def stop(self):
        if self.p and self.p.poll() is None:
            self.p.terminate()
            self.p.wait()
            self.t.join(timeout=5)


def plan_flops(kgen, pat, opts):
    out = subprocess.run([kgen, "plan", pat, "--json"] + opts, check=True,
                         capture_output=True, text=True).stdout
    return sum(k["flops"] for k in json.loads(out)["kernels"])


def cost(w):
    """A workload's rough share of a run, in units of about 50 s on the H200
    (its tune at budget 6, then the build, torch.compile and the timings;
    the JSONs' tune_s of 2026-11-29): an fp16 block or the large GEMMs
    tune several big kernels (160-215 s), the encoder's and the fp32
    inference blocks' kernels are small, an attention row tunes one."""
    name = w[0]
    if name.startswith("sdpa"):
        return 1
    if "f32" in name or name.startswith("encoder"):
        return 2
    if "block" in name or "layer" in name or "M=8192" in name:
        return 5
    return 3


def shard(todo, n):
    """The workloads over n GPUs: the costliest first, each to the GPU with
    the least so far (ties to the lower index; equal costs keep their order)."""
    loads = [[0, i, []] for i in range(n)]
    for w in sorted(todo, key=cost, reverse=True):
        g = min(loads, key=lambda x: (x[0], x[1]))
        g[0] += cost(w)
        g[2].append(w)
    return [g[2] for g in loads]


def relay(prefix, stream):
    for line in stream:
        print(prefix + line, end="", flush=True)


def measure_sharded(args, todo, db):
    """--gpus N: one `measure` process a GPU, each seeing its GPU alone
    (CUDA_VISIBLE_DEVICES), all tuning into db: kgen tune shares a DB
    between processes and times on each GPU under a lock named by its PCI
    bus id, so the GPUs time at once.  Every row goes to OUT as usual."""
    import threading
    vis = os.environ.get("CUDA_VISIBLE_DEVICES")
    ids = [v for v in vis.split(",") if v] if vis else \
        [str(i) for i in range(args.gpus)]
    if len(ids) < args.gpus:
        sys.exit(f"bench.py: --gpus {args.gpus}, but CUDA_VISIBLE_DEVICES "
                 f"names {len(ids)}")
    parts = shard(todo, args.gpus)
    if args.dry_run:
        for i, part in enumerate(parts):
            print(f"gpu {ids[i]} ({sum(cost(w) for w in part)}): " +
                  ",".join(slug(w[0]) for w in part))
        return
    procs = []
    for i, part in enumerate(parts):
        if not part:
            continue
        cmd = [sys.executable, os.path.abspath(__file__), "measure",
               "--kgen", args.kgen, "--out", args.out, "--db", db,
               "--only", ",".join(slug(w[0]) for w in part),
               "--budget", str(args.budget),
               "--tune-timeout", str(args.tune_timeout),
               "--rounds", str(args.rounds), "--settle", str(args.settle)]
        if args.no_max_autotune:
            cmd.append("--no-max-autotune")
        p = subprocess.Popen(cmd, env=dict(os.environ,
                                           CUDA_VISIBLE_DEVICES=ids[i]),
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             text=True)
        t = threading.Thread(target=relay, args=(f"[gpu {ids[i]}] ", p.stdout))
        t.start()
        procs.append((p, t))
    rc = 0
    for p, t in procs:
        rc |= p.wait()
        t.join()
    print("\nall GPUs done:")
    for w in todo:
        f = os.path.join(args.out, slug(w[0]) + ".json")
        if os.path.exists(f):
            with open(f) as fp:
                print(row_text(json.load(fp)))
        else:
            print(f"{w[0]}: no result")
            rc = 1
    if rc:
        sys.exit(1)


def measure(args):
    todo = workloads()
    if args.workloads:
        want = args.workloads.split(",")
        todo = [w for w in todo if any(x in slug(w[0]) for x in want)]
    if args.only:
        only = set(args.only.split(","))
        todo = [w for w in todo if slug(w[0]) in only]
    os.makedirs(args.out, exist_ok=True)
    db = os.path.abspath(args.db) if args.db else \
        os.path.join(args.out, "tune.sqlite")
    if args.gpus > 1 or args.dry_run:
        return measure_sharded(args, todo, db)
    import torch
    models = torch_models()
    env = dict(os.environ, KGEN_TEMPLATES=os.path.join(ROOT, "templates"),
               KGEN_PATTERNS=os.path.join(ROOT, "patterns"),
               KGEN_INCLUDE=os.path.join(ROOT, "include"))
    clocks = Clocks()
    for name, pat, opts in todo:
        res = {"workload": name, "model": pat, "options": opts,
               "device": torch.cuda.get_device_name(),
               "torch": torch.__version__, "date": time.strftime(
                   "%Y-%m-%d %H:%M UTC", time.gmtime())}
        out = os.path.join(args.out, slug(name))
        t0 = time.time()
        try:
            # a tune cut by --tune-timeout keeps every trial it finished
            # (the DB commits each one): build from those
            try:
                tune = subprocess.run(
                    [args.kgen, "tune", pat, "--arch", "sm_90", "--db", db,
                     "--budget", str(args.budget), "-q"] + opts,
                    env=env, capture_output=True, text=True, cwd=ROOT,
                    timeout=args.tune_timeout)
                res["tune_rc"] = tune.returncode
            except subprocess.TimeoutExpired:
                res["tune_rc"] = "timeout"
            res["tune_s"] = round(time.time() - t0, 1)
            subprocess.run([args.kgen, "build", pat, "--arch", "sm_90",
                            "--db", db, "-o", out, "-q"] + opts, env=env,
                           check=True, capture_output=True, text=True,
                           cwd=ROOT)
            fused = Fused(out)
            res["provenance"] = fused.model.provenance.decode()
            res["flops"] = plan_flops(args.kgen, os.path.join(ROOT, pat),
                                      opts)
            ins, outs = make_inputs(fused)
            res["bytes"] = sum(t.numel() * t.element_size()
                               for t in list(ins.values()) +
                               [t for _, t in outs])
            order = [a.name.decode() for a in fused.args if not a.output]
            call = fused.bind([ins[n] for n in order] + [t for _, t in outs])
            fn = models[fused.name]
            d = fused.dims
            call()
            torch.cuda.synchronize()
            # the reference in true fp32: no TF32 in cuBLAS or cuDNN
            tf32 = (torch.backends.cuda.matmul.allow_tf32,
                    torch.backends.cudnn.allow_tf32)
            torch.backends.cuda.matmul.allow_tf32 = False
            torch.backends.cudnn.allow_tf32 = False
            ref = fn({k: (v.float() if v.is_floating_point() else v)
                      for k, v in ins.items()}, d)
            (torch.backends.cuda.matmul.allow_tf32,
             torch.backends.cudnn.allow_tf32) = tf32
            dt = DTYPES[fused.args[-1].dtype]
            res["dtype"] = dt
            res["check"] = []
            for (oname, got), want in zip(outs, ref):
                g = got.float()
                rel = ((g - want).norm() / want.norm()).item()
                mabs = ((g - want).abs().max() /
                        (1 + want.abs().max())).item()
                ok = (rel <= TOL[dt] and mabs <= 4 * TOL[dt] and
                      not torch.isnan(g).any().item())
                res["check"].append({"output": oname, "rel_l2": rel,
                                     "max_abs": mabs, "tol": TOL[dt],
                                     "ok": ok})
            # every contender compiled and run once, then timed in turn,
            # ROUNDS rounds: each figure the median of its rounds' medians,
            # so that a drift of the GPU's clocks over the run falls on
            # every contender alike, not on the one timed first
            runs = [("kgen", call), ("eager", lambda: fn(ins, d))]
            try:
                c = torch.compile(lambda: fn(ins, d))
                c()
                runs.append(("compile", c))
            except Exception as e:                           # noqa: BLE001
                res["compile_error"] = str(e)[:300]
            if not args.no_max_autotune:
                try:
                    c = torch.compile(lambda: fn(ins, d), mode="max-autotune")
                    c()
                    runs.append(("max-autotune", c))
                except Exception as e:                       # noqa: BLE001
                    res["autotune_error"] = str(e)[:300]
            if fused.name.startswith("sdpa"):
                from torch.nn.attention import SDPBackend, sdpa_kernel
                causal = fused.name == "sdpa_causal"
                for label, be in (("flash", SDPBackend.FLASH_ATTENTION),
                                  ("cudnn", SDPBackend.CUDNN_ATTENTION),
                                  ("efficient",
                                   SDPBackend.EFFICIENT_ATTENTION)):
                    try:
                        def run(be=be):
                            with sdpa_kernel(be):
                                return F_sdpa(ins["q"], ins["k"], ins["v"],
                                              is_causal=causal)
                        run()
                        runs.append((label, run))
                    except Exception as e:                   # noqa: BLE001
                        res[f"{label}_error"] = str(e)[:200]
            windows = []
            res["ms"], res["ms_rounds"] = in_turn(
                runs, args.rounds, windows=windows, settle=(
                    lambda f: keep_busy(f, args.settle)) if args.settle else
                None)
            res["settle_s"] = args.settle
            time.sleep(0.3)              # nvidia-smi's last samples
            res["clocks"] = {label: [clock_stats(clocks.samples, t0, t1)
                                     for lb, _, t0, t1 in windows
                                     if lb == label]
                             for label, _ in runs}
            torch._dynamo.reset()
        except Exception as e:                               # noqa: BLE001
            res["error"] = str(e)[:2000]
        with open(out + ".json", "w") as f:
            json.dump(res, f, indent=1)
        print(row_text(res), flush=True)
        if res.get("clocks"):
            print("  " + clocks_text(res), flush=True)
    clocks.stop()


def F_sdpa(q, k, v, is_causal):
    import torch.nn.functional as F
    return F.scaled_dot_product_attention(q, k, v, is_causal=is_causal)


# ---- render -------------------------------------------------------------------

PEERS = ["eager", "compile", "max-autotune", "flash", "cudnn", "efficient"]


def floor_ms(r):
    peak = PEAK_F32 if r.get("dtype") == "f32" else PEAK_F16
    flops = r.get("flops", 0)
    if "causal" in r["workload"]:
        flops /= 2      # half the scores are masked; kgen's count is dense
    return max(flops / peak, r.get("bytes", 0) / PEAK_BW) * 1e3


def rate(r, ms):
    flops = r.get("flops", 0) / (2 if "causal" in r["workload"] else 1)
    if flops / max(r.get("bytes", 1), 1) > (PEAK_F16 / PEAK_BW) / 4:
        return f"{flops / ms / 1e9:.0f} TF/s"
    return f"{r.get('bytes', 0) / ms / 1e9:.2f} TB/s"


def untuned(r):
    """Kernels the build ran at a config it never timed: the tune ran out of
    --tune-timeout before them (the figure measures the timeout, not kgen)."""
    return sum(1 for line in r.get("provenance", "").splitlines()
               if ": untuned:" in line)


def cut(r):
    """Whether the tune ran out of --tune-timeout: some kernels (or an
    optional pattern's unfused alternative) may have had fewer trials than
    the budget, even where none is left untuned."""
    return r.get("tune_rc") == "timeout"


def speedup(x):
    """A speed-up cut, not rounded, to two decimals: 1.4956 reads 1.49x, so
    a figure under a target never prints as the target."""
    return f"{math.floor(x * 100 + 1e-9) / 100:.2f}x"


def row_text(r):
    if "error" in r:
        return f"{r['workload']}: ERROR {r['error'][:200]}"
    t = r["ms"]
    best = min((t[p], p) for p in PEERS if p in t)
    chk = all(c["ok"] for c in r["check"])
    return (f"{r['workload']}: kgen {t['kgen']:.4f} ms ({rate(r, t['kgen'])}), "
            f"best peer {best[1]} {best[0]:.4f} ms, speed-up "
            f"{speedup(best[0] / t['kgen'])}, floor {floor_ms(r):.4f} ms, check "
            f"{'ok' if chk else 'MISMATCH'}" +
            (f", {n} kernels UNTUNED" if (n := untuned(r)) else "") +
            (", tune cut at --tune-timeout" if cut(r) else ""))


def clocks_text(r):
    """Each contender's SM clock over its rounds (mean MHz of each round's
    samples) and whether the power cap (reason 0x4) held it down."""
    parts = []
    for label, per in r.get("clocks", {}).items():
        got = [c for c in per if c]
        if not got:
            continue
        capped = sum(1 for c in got if int(c["reasons"], 16) & 0x4)
        parts.append(f"{label} " + "/".join(str(c["mhz"]) for c in got) +
                     f" MHz, {max(c['w_max'] for c in got)} W max" +
                     (f", power-capped in {capped} of {len(got)}"
                      if capped else ""))
    return "SM clock while timed: " + "; ".join(parts) if parts else \
        "SM clock while timed: no samples"


def render(args):
    # the newest measurement of each workload on the device (of the newest
    # one when --device is not given), with the call (directory) it came from
    every = []
    for d in args.dirs:
        for f in sorted(os.listdir(d)):
            if f.endswith(".json"):
                with open(os.path.join(d, f)) as fp:
                    r = json.load(fp)
                if "workload" not in r:      # not a measure result
                    continue
                r["_from"] = os.path.normpath(d)
                every.append(r)
    dev = args.device or max(every, key=lambda r: r.get("date", ""),
                             default={}).get("device", "?")
    newest = {}
    for r in every:
        k = slug(r["workload"])
        if r.get("device") == dev and (k not in newest or r.get(
                "date", "") >= newest[k].get("date", "")):
            newest[k] = r
    rows = list(newest.values())
    order = {slug(w[0]): i for i, w in enumerate(workloads())}
    rows.sort(key=lambda r: order.get(slug(r["workload"]), 999))
    dates = sorted({r.get("date", "?") for r in rows})
    many = len(dates) > 1
    lines = ["| workload | kgen | eager | compile | max-autotune | flash | "
             "cudnn | efficient | kgen vs best peer | floor (kgen / floor) "
             "| check (rel-L2) |" + (" measured |" if many else ""),
             "|" + "---|" * (12 if many else 11)]
    for r in rows:
        if "error" in r:
            lines.append(f"| {r['workload']} | error: "
                         f"{r['error'][:120].splitlines()[0]} |" + " |" * 9 +
                         (f" {r.get('date', '?')}, {r['_from']} |"
                          if many else ""))
            continue
        t = r["ms"]
        n = untuned(r)
        cells = [f"{t['kgen']:.4f} ms<br>{rate(r, t['kgen'])}" +
                 (f"<br>**{n} untuned**" if n else "") +
                 ("<br>**tune cut**" if cut(r) else "")]
        for p in PEERS:
            cells.append(f"{t[p]:.4f}<br>{rate(r, t[p])}" if p in t else "—")
        best = min((t[p], p) for p in PEERS if p in t)
        fl = floor_ms(r)
        chk = max(c["rel_l2"] for c in r["check"])
        ok = all(c["ok"] for c in r["check"])
        lines.append(f"| {r['workload']} | " + " | ".join(cells) +
                     f" | {speedup(best[0] / t['kgen'])} ({best[1]}) | "
                     f"{fl:.4f} ms ({t['kgen'] / fl:.1f}x) | "
                     f"{'ok' if ok else 'MISMATCH'} ({chk:.1e}) |" +
                     (f" {r.get('date', '?')}, {r['_from']} |" if many else ""))
    clk = []
    for r in rows:
        c = r.get("clocks") or {}
        if "error" in r or "kgen" not in c:
            continue
        best = min((r["ms"][p], p) for p in PEERS if p in r["ms"])[1]
        mean = {lb: [x["mhz"] for x in c.get(lb, []) if x]
                for lb in ("kgen", best)}
        if all(mean.values()):
            clk.append(f"{r['workload']}: kgen " + "/".join(
                map(str, mean["kgen"])) + f", {best} " + "/".join(
                map(str, mean[best])) +
                f" (settle {r.get('settle_s', 0):g} s)")
    if clk:
        lines += ["", "SM clock (MHz) while each round was timed, from "
                  "nvidia-smi; under a sustained load the 700 W cap holds "
                  "it down: " + "; ".join(clk) + "."]
    table = "\n".join(lines)
    print(table)
    if args.write:
        date = dates[0] if not many else \
            f"{dates[0]} to {dates[-1]} (each row's call in its last column)"
        text = open(args.write).read() if os.path.exists(args.write) else ""
        begin, end = "<!-- bench:begin -->", "<!-- bench:end -->"
        block = (f"{begin}\nMeasured on {dev}, {date}, with PyTorch "
                 f"{rows[0].get('torch', '?') if rows else '?'}:\n\n"
                 f"```\n{args.command}\n```\n\n{table}\n{end}")
        if begin in text and end in text:
            text = text[:text.index(begin)] + block + \
                text[text.index(end) + len(end):]
        else:
            text += "\n" + block + "\n"
        with open(args.write, "w") as f:
            f.write(text)


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("measure")
    m.add_argument("--kgen", required=True)
    m.add_argument("--out", required=True)
    m.add_argument("--workloads", default="")
    m.add_argument("--budget", type=int, default=24)
    m.add_argument("--db", help="tuning DB (default OUT/tune.sqlite)")
    m.add_argument("--tune-timeout", type=float, default=300)
    m.add_argument("--no-max-autotune", action="store_true")
    m.add_argument("--rounds", type=int, default=3,
                   help="time the contenders in turn this many times")
    m.add_argument("--settle", type=float, default=1,
                   help="run each contender this many seconds back to back "
                   "before each timing (the sustained load's clocks)")
    m.add_argument("--gpus", type=int, default=1,
                   help="spread the workloads over this many GPUs of the host")
    m.add_argument("--dry-run", action="store_true",
                   help="print the split over the GPUs, run nothing")
    m.add_argument("--only", help=argparse.SUPPRESS)   # exact slugs (--gpus)
    r = sub.add_parser("render")
    r.add_argument("dirs", nargs="+")
    r.add_argument("--write")
    r.add_argument("--command", default="tools/bench/bench.py")
    r.add_argument("--device", help="rows measured on this device only "
                   "(default: the newest row's)")
    sub.add_parser("list")
    a = ap.parse_args()
    if a.cmd == "measure":
        a.kgen = os.path.abspath(a.kgen)
        measure(a)
    elif a.cmd == "render":
        render(a)
    else:
        for w in workloads():
            print(slug(w[0]), "\t", w[1], " ".join(w[2]))


if __name__ == "__main__":
    main()
