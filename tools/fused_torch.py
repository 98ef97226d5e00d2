#!/usr/bin/env python3
"""tools/fused_torch.py LIBDIR MODEL [--dim N=V ...] [--dtype f16|f32]

Load LIBDIR/libfused.so (kgen build --arch sm_XX) with ctypes, call
MODEL_forward_v on PyTorch CUDA tensors on PyTorch's current stream, and
compare with PyTorch's own computation of the same block in fp32 from the
same (rounded) inputs and weights: relative L2 and max-abs per output.
Timing is tools/bench/bench.py's job.  Exit 0 when every output is
within the whole-block tolerance (docs/cli.md), 1 otherwise.

Models: wavenet_layer, lynxnet2_block (the examples; their PyTorch code is
tools/bench/bench.py's, op for op as in examples/*.pat).
"""
import ctypes
import math
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "bench"))
from bench import Tensor, desc, torch_models  # noqa: E402  the models op for op

KGRT_CUDA = 0


MODELS = {
    "wavenet_layer": ("wavenet_layer", {"B": 32, "C": 512, "H": 384, "T": 1536,
                                      "DIL": 2},
                      lambda d: [("x", [d["B"], d["C"], d["T"]]),
                                 ("cond", [d["B"], d["H"], d["T"]]),
                                 ("temb", [d["B"], d["C"]]),
                                 ("wd", [d["C"], d["C"]]), ("bd", [d["C"]]),
                                 ("wdil", [2 * d["C"], d["C"], 3]),
                                 ("bdil", [2 * d["C"]]),
                                 ("wc", [2 * d["C"], d["H"], 1]),
                                 ("bc", [2 * d["C"]]),
                                 ("wo", [2 * d["C"], d["C"], 1]),
                                 ("bo", [2 * d["C"]])],
                      ["out", "skip"]),
    "lynxnet2_block": ("lynxnet2_block", {"B": 64, "T": 768, "C": 1024},
                       lambda d: [("x", [d["B"], d["T"], d["C"]]),
                                  ("g", [d["C"]]), ("b", [d["C"]]),
                                  ("wdw", [d["C"], 1, 31]), ("bdw", [d["C"]]),
                                  ("w1", [2 * d["C"], d["C"]]),
                                  ("b1", [2 * d["C"]]),
                                  ("w2", [2 * d["C"], d["C"]]),
                                  ("b2", [2 * d["C"]]),
                                  ("w3", [d["C"], d["C"]]), ("b3", [d["C"]])],
                       ["out"]),
}

TOL = {torch.float32: 1e-4, torch.float16: 1e-2, torch.bfloat16: 6e-2}


def main():
    libdir, model = sys.argv[1], sys.argv[2]
    fn, dims, shapes, outs = MODELS[model]
    fn = torch_models()[fn]
    dims = dict(dims)
    dtype = torch.float16
    args = sys.argv[3:]
    while args:
        if args[0] == "--dim":
            k, v = args[1].split("=")
            dims[k] = int(v)
            args = args[2:]
        elif args[0] == "--dtype":
            dtype = {"f16": torch.float16, "f32": torch.float32,
                     "bf16": torch.bfloat16}[args[1]]
            args = args[2:]
        else:
            sys.exit("unknown argument " + args[0])
    torch.manual_seed(0)
    dev = torch.device("cuda")
    params = {}
    for name, shape in shapes(dims):
        fan_in = math.prod(shape[1:]) if len(shape) >= 2 and name[0] in "wW" \
            else 1
        t = (torch.rand(shape, device=dev) * 2 - 1) / math.sqrt(fan_in)
        if name in ("g",):
            t = 1 + 0.1 * t
        params[name] = t.to(dtype).contiguous()
    ref = fn({k: v.float() for k, v in params.items()}, dims)

    lib = ctypes.CDLL(f"{libdir}/libfused.so")
    lib.kgrt_last_error.restype = ctypes.c_char_p
    lib.kgrt_device_open_default.argtypes = [ctypes.c_int,
                                             ctypes.POINTER(ctypes.c_void_p)]
    lib.kgrt_stream_wrap.argtypes = [ctypes.c_void_p, ctypes.c_void_p,
                                     ctypes.POINTER(ctypes.c_void_p)]
    fwd = getattr(lib, f"{model}_forward_v")
    fwd.argtypes = [ctypes.c_void_p, ctypes.POINTER(Tensor), ctypes.c_int,
                    ctypes.c_void_p, ctypes.c_size_t]
    wsz = getattr(lib, f"{model}_workspace_size")
    prov = getattr(lib, f"{model}_provenance")
    prov.restype = ctypes.c_char_p

    def check(rc, what):
        if rc != 0:
            sys.exit(f"{what}: {rc}: {lib.kgrt_last_error().decode()}")

    kdev = ctypes.c_void_p()
    check(lib.kgrt_device_open_default(KGRT_CUDA, ctypes.byref(kdev)), "open")
    stream = torch.cuda.current_stream()
    ks = ctypes.c_void_p()
    check(lib.kgrt_stream_wrap(kdev, ctypes.c_void_p(stream.cuda_stream),
                               ctypes.byref(ks)), "stream")
    order = [n for n, _ in shapes(dims)]
    nbytes = ctypes.c_size_t()
    dimvals = [dims[k] for k in dims]
    wsz.argtypes = [ctypes.c_int64] * len(dimvals) + \
        [ctypes.POINTER(ctypes.c_size_t)]
    check(wsz(*dimvals, ctypes.byref(nbytes)), "workspace_size")
    ws = torch.empty(max(nbytes.value, 1), dtype=torch.uint8, device=dev)
    results = [torch.empty_like(r, dtype=dtype) for r in ref]
    arr = (Tensor * (len(order) + len(results)))(
        *([desc(params[n]) for n in order] + [desc(r) for r in results]))

    def run():
        check(fwd(ks, arr, len(arr), ctypes.c_void_p(ws.data_ptr()),
                  nbytes.value), "forward")

    run()
    torch.cuda.synchronize()
    ok = True
    for name, got, want in zip(outs, results, ref):
        g = got.float()
        rel = ((g - want).norm() / want.norm()).item()
        mabs = ((g - want).abs().max() / (1 + want.abs().max())).item()
        tol = TOL[dtype]
        good = rel <= tol and mabs <= 4 * tol and not torch.isnan(g).any()
        ok = ok and good
        print(f"{model} {name}: rel-L2 {rel:.3g} (tol {tol:g}) max-abs "
              f"{mabs:.3g} (tol {4 * tol:g}) {'ok' if good else 'MISMATCH'}")

    print(prov().decode())
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
