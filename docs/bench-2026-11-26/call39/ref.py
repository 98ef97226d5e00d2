import sys, torch, torch.nn.functional as F
from triton.testing import do_bench
torch.manual_seed(0)
for (M, K, N) in [(49152, 512, 2048), (49152, 2048, 512), (49152, 256, 1024), (49152, 512, 1024), (8192, 4096, 16384)]:
    x = torch.randn(M, K, device="cuda", dtype=torch.float16)
    w = torch.randn(N, K, device="cuda", dtype=torch.float16) / K**0.5
    b = torch.randn(N, device="cuda", dtype=torch.float16)
    t1 = do_bench(lambda: F.linear(x, w, b), warmup=50, rep=300, return_mode="median")
    t2 = do_bench(lambda: F.gelu(F.linear(x, w, b)), warmup=50, rep=300, return_mode="median")
    t3 = do_bench(lambda: x @ w.t(), warmup=50, rep=300, return_mode="median")
    fl = 2 * M * N * K
    print(f"M={M} K={K} N={N}: linear {t1:.4f} ms ({fl/t1/1e9:.0f} TF/s) matmul {t3:.4f} ({fl/t3/1e9:.0f}) linear+gelu eager {t2:.4f}")
