import sys, os
sys.path.insert(0, os.path.join(os.getcwd(), "tools/bench"))
import torch, bench
mode, d = sys.argv[1], sys.argv[2]
f = bench.Fused(d)
ins, outs = bench.make_inputs(f)
order = [a.name.decode() for a in f.args if not a.output]
if mode == "kgen":
    call = f.bind([ins[n] for n in order] + [t for _, t in outs])
    for _ in range(2):
        call()
    torch.cuda.synchronize()
else:
    fn = bench.torch_models()[f.name]
    c = torch.compile(lambda: fn(ins, f.dims))
    c(); c(); torch.cuda.synchronize()
    from torch.profiler import profile, ProfilerActivity
    with profile(activities=[ProfilerActivity.CUDA]) as p:
        for _ in range(10):
            c()
        torch.cuda.synchronize()
    print(f.name)
    print(p.key_averages().table(sort_by="cuda_time_total", row_limit=14, max_name_column_width=90))
