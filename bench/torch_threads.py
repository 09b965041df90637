#!/usr/bin/python3
"""PyTorch peer of bench/native_threads.cpp: the same workloads with 1 and 2 threads
(torch.set_num_threads), timed in interleaved pairs, one JSON object on stdout.

    /usr/bin/python3 bench/torch_threads.py [--rounds 15] [--threads 2] [--quick]

Workloads (as native_threads.cpp; random weights, speed only): char-step (training step of the
char model, B 16 × T 64), pretrain-step (shakespeare-char config, B 4 × T 256), gpt2-forward
(64 tokens through 4 layers of GPT-2-small shapes, no grad), attention (causal, T 1024, H 8,
hs 64: matmul, masked_fill, softmax, matmul, as bench/torch_anchor.py) and attention-fwd-bwd
(that forward and its backward through autograd). The model is bench/train_torch.py's nanoGPT (exact GELU).
"""
import json
import math
import os
import sys
import time

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from train_torch import GPT  # noqa: E402  (the bench's one nanoGPT in PyTorch)


def config(vocab, block, layers, heads, width):
    return {"vocab_size": vocab, "block_size": block, "n_layer": layers, "n_head": heads, "n_embd": width,
            "bias": True, "mlp": True, "layer_norm": True}


def training_step(cfg, B, T):
    torch.manual_seed(1)
    model = GPT(cfg, "none")
    params = list(model.parameters())
    optimizer = torch.optim.AdamW([{"params": [p for p in params if p.dim() >= 2], "weight_decay": 0.1},
                                   {"params": [p for p in params if p.dim() < 2], "weight_decay": 0.0}],
                                  lr=1e-3, betas=(0.9, 0.95), eps=1e-8)
    g = torch.Generator().manual_seed(7)
    tokens = torch.randint(0, cfg["vocab_size"], (B, T), generator=g)
    targets = torch.randint(0, cfg["vocab_size"], (B, T), generator=g)

    def step():
        loss = model(tokens, targets)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
    return step


def forward(cfg, T):
    torch.manual_seed(1)
    model = GPT(cfg, "none")
    tokens = torch.randint(0, cfg["vocab_size"], (1, T), generator=torch.Generator().manual_seed(8))

    def run():
        with torch.no_grad():  # logits only, as the native forward without targets
            t = tokens.size(1)
            x = model.transformer.wte(tokens) + model.transformer.wpe(torch.arange(t))
            for block in model.transformer.h:
                x = block(x)
            model.lm_head(model.transformer.ln_f(x))
    return run


def attention(H, T, hs, backward):
    g = torch.Generator().manual_seed(9)
    q, k, v, dout = (torch.rand(H, T, hs, generator=g) * 2 - 1 for _ in range(4))
    mask = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)
    if backward:
        q.requires_grad_(), k.requires_grad_(), v.requires_grad_()

    def fwd():
        s = torch.matmul(q, k.transpose(-1, -2)) * (1.0 / math.sqrt(hs))
        return torch.matmul(torch.softmax(s.masked_fill(mask, float("-inf")), dim=-1), v)

    def run():
        if backward:
            out = fwd()  # the backward needs the forward's graph; time both, as autograd does
            torch.autograd.grad(out, (q, k, v), dout)
        else:
            with torch.no_grad():
                fwd()
    return run


def quantile(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, round(p * (len(v) - 1)))]


def main():
    rounds = int(sys.argv[sys.argv.index("--rounds") + 1]) if "--rounds" in sys.argv else 15
    threads = int(sys.argv[sys.argv.index("--threads") + 1]) if "--threads" in sys.argv else 2
    quick = "--quick" in sys.argv
    if quick:
        rounds = 2
    workloads = [
        ("char-step", training_step(config(65, 64, 2, 4, 64), 16, 64)),
        ("pretrain-step", training_step(config(65, 256, 6, 6, 384), 1 if quick else 4, 64 if quick else 256)),
        ("gpt2-forward", forward(config(50257, 64, 1 if quick else 4, 12, 768), 64)),
        ("attention", attention(8, 128 if quick else 1024, 64, False)),
        ("attention-fwd-bwd", attention(8, 128 if quick else 1024, 64, True)),
    ]
    out = []
    for name, run in workloads:
        def timed(n):
            torch.set_num_threads(n)
            t0 = time.perf_counter()
            run()
            return (time.perf_counter() - t0) * 1000
        for _ in range(2):  # warm-up
            timed(1), timed(threads)
        one, many, ratio = [], [], []
        for r in range(rounds):
            if r % 2 == 0:
                a = timed(1)
                b = timed(threads)
            else:
                b = timed(threads)
                a = timed(1)
            one.append(a), many.append(b), ratio.append(a / b)
        summary = lambda v: {"median": quantile(v, 0.5), "p10": quantile(v, 0.1), "p90": quantile(v, 0.9)}
        out.append({"name": name, "one": summary(one), "many": summary(many), "speedup": summary(ratio)})
    print(json.dumps({"torch": torch.__version__, "threads": threads, "rounds": rounds,
                      "blas": os.path.realpath("/usr/lib/x86_64-linux-gnu/libblas.so.3"), "workloads": out}))


if __name__ == "__main__":
    main()
