"""call 183: two builds of one model timed in turn in one process, on the same inputs.

    python3 ab.py OLD_OUTDIR NEW_OUTDIR

Loads each libfused.so through tools/bench/bench.py's Fused, binds both to the same
inputs (outputs apart), compares the two outputs, then times each forward with
bench.do_bench (triton's median, as bench.py measure does), alternating, 5 rounds."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "../../../tools/bench"))
import bench  # noqa: E402
import torch  # noqa: E402

a, b = bench.Fused(sys.argv[1]), bench.Fused(sys.argv[2])
ins, outs_a = bench.make_inputs(a)
_, outs_b = bench.make_inputs(b)
order = [x.name.decode() for x in a.args if not x.output]
ca = a.bind([ins[n] for n in order] + [t for _, t in outs_a])
cb = b.bind([ins[n] for n in order] + [t for _, t in outs_b])
ca()
cb()
torch.cuda.synchronize()
for (n, ta), (_, tb) in zip(outs_a, outs_b):
    d = (ta.float() - tb.float()).abs().max().item()
    print(f"{n}: max |old - new| = {d:.3g}, max |old| = {ta.float().abs().max().item():.3g}")
ta_, tb_ = [], []
for r in range(5):
    ta_.append(bench.do_bench(ca))
    tb_.append(bench.do_bench(cb))
    print(f"round {r}: old {ta_[-1]:.4f} ms, new {tb_[-1]:.4f} ms")
ta_.sort()
tb_.sort()
print(f"median of rounds: old {ta_[2]:.4f} ms, new {tb_[2]:.4f} ms, "
      f"new/old {tb_[2] / ta_[2]:.4f}")
