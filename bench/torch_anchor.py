#!/usr/bin/python3
"""Native anchor for bench/run.mjs: the same attention workload in PyTorch, one thread.

    O (H, T, hs) = softmax(Q Kᵀ / √hs [causal mask]) V,  float32, B = 1, hs = 64

Run with Debian's python3-torch (libopenblas0-openmp gives it a fast BLAS):
    /usr/bin/python3 bench/torch_anchor.py            # markdown table on stdout
    /usr/bin/python3 bench/torch_anchor.py --json     # what bench/run.mjs reads
Median and p10/p90 over repeated runs after a warm-up, like bench/run.mjs; GFLOP/s counts
the same useful flops (4·hs per query–key pair on or below the diagonal when causal).

    /usr/bin/python3 bench/torch_anchor.py --linear R,R,… I×O,I×O,…   # JSON for bench/kernels.mjs
times the linear layer's three products (legend: R rows, I in, O out features) the way
bench/kernels.mjs times ours: y = F.linear(x, w, b) (R, O); dx = dy @ w (R, I); dw = dyᵀ @ x
(O, I) (autograd's own products, without the accumulation); the fastest CPU time
(time.process_time) of a few runs, as the peak it is compared with is a fastest run.
"""
import json
import os
import sys
import time

import torch

HS = 64


def attention(q, k, v, causal, mask):
    s = torch.matmul(q, k.transpose(-1, -2)) * (1.0 / HS ** 0.5)
    if causal:
        s = s.masked_fill(mask, float("-inf"))
    return torch.matmul(torch.softmax(s, dim=-1), v)


def measure(H, T, causal, budget_s=1.5, min_reps=5, max_reps=25):
    g = torch.Generator().manual_seed(1000 * H + T)
    q, k, v = (torch.rand(H, T, HS, generator=g) * 2 - 1 for _ in range(3))
    mask = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1) if causal else None
    with torch.no_grad():
        for _ in range(2):
            attention(q, k, v, causal, mask)
        times = []
        start = time.perf_counter()
        while len(times) < min_reps or (len(times) < max_reps and time.perf_counter() - start < budget_s):
            t0 = time.perf_counter()
            attention(q, k, v, causal, mask)
            times.append((time.perf_counter() - t0) * 1000)
    times.sort()
    pick = lambda p: times[min(len(times) - 1, round(p * (len(times) - 1)))]
    pairs = T * (T + 1) / 2 if causal else T * T
    return {"H": H, "T": T, "causal": causal, "median": pick(0.5), "p10": pick(0.1), "p90": pick(0.9),
            "reps": len(times), "gflops": H * pairs * 4 * HS / pick(0.5) / 1e6}


def linear_products(rows, shapes, reps=7):
    out = []
    g = torch.Generator().manual_seed(5)
    for R in rows:
        for I, O in shapes:
            x, dy = torch.rand(R, I, generator=g) - 0.5, torch.rand(R, O, generator=g) - 0.5
            w, b = torch.rand(O, I, generator=g) - 0.5, torch.rand(O, generator=g) - 0.5
            forms = {"forward": lambda: torch.nn.functional.linear(x, w, b), "dx": lambda: dy @ w,
                     "dw": lambda: dy.t() @ x}
            for form, fn in forms.items():
                with torch.no_grad():
                    fn()
                    best = float("inf")
                    for _ in range(reps):
                        t0 = time.process_time()
                        fn()
                        best = min(best, (time.process_time() - t0) * 1000)
                out.append({"R": R, "I": I, "O": O, "form": form, "ms": best})
    return out


def main():
    torch.set_num_threads(1)
    if "--linear" in sys.argv:
        at = sys.argv.index("--linear")
        rows = [int(r) for r in sys.argv[at + 1].split(",")]
        shapes = [tuple(int(d) for d in s.split("x")) for s in sys.argv[at + 2].split(",")]
        print(json.dumps({"torch": torch.__version__, "threads": torch.get_num_threads(),
                          "blas": os.path.realpath("/usr/lib/x86_64-linux-gnu/libblas.so.3"),
                          "rows": linear_products(rows, shapes)}))
        return
    ts = [16, 64, 256, 1024, 2048, 4096]
    if "--T" in sys.argv:
        ts = [int(t) for t in sys.argv[sys.argv.index("--T") + 1].split(",")]
    rows = [measure(H, T, causal) for H in (8, 1) for causal in (True, False) for T in ts]
    info = {"torch": torch.__version__, "threads": torch.get_num_threads(),
            "blas": os.path.realpath("/usr/lib/x86_64-linux-gnu/libblas.so.3"), "rows": rows}
    if "--json" in sys.argv:
        print(json.dumps(info))
        return
    print(f"PyTorch {info['torch']}, {info['threads']} thread, BLAS {info['blas']}")
    print("| H | T | mask | ms (median) | p10–p90 | GFLOP/s |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['H']} | {r['T']} | {'causal' if r['causal'] else 'none'} | {r['median']:.3f} | "
              f"{r['p10']:.3f}–{r['p90']:.3f} | {r['gflops']:.2f} |")


if __name__ == "__main__":
    main()
