#!/usr/bin/python3
"""PyTorch peer of the training benchmark (bench/train.mjs): nanoGPT training steps, one thread.

    /usr/bin/python3 bench/train_torch.py PLAN.safetensors [PLAN2.safetensors …]

Each plan is a safetensors file written by bench/train_peers.mjs: the initial parameters under
nanoGPT's state_dict names (F32), the batches `tokens` and `targets` (I32, (steps, B, T)), and in
`__metadata__.plan` a JSON object with the config, the GELU form and the AdamW settings. For each
plan this builds the model, loads the parameters by name, runs every step (forward, cross-entropy
on next tokens, backward, clip_grad_norm_, AdamW with nanoGPT's two groups) and times it, then
prints one JSON line: {"runs": [{losses, gradNorms, stepMs, rssPeakMB}, …], torch, threads, blas,
rssBaselineMB}. When `import torch` fails it prints {"unavailable": "<why>"} and exits 0, so the
benchmark can skip this peer with a note.

The model mirrors tests/fixtures/make_training_fixtures.py's nanoGPT (same modules, names and
math; torch 1.13 has no scaled_dot_product_attention, so the causal mask is a buffer). It is a
copy, not an import: that script pins Debian's reference BLAS when it is imported, and a speed
anchor has to run on the BLAS torch really uses here.
"""
import json
import math
import os
import resource
import struct
import sys
import time

try:
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
except Exception as e:  # noqa: BLE001 (any failure to import means: no PyTorch peer)
    print(json.dumps({"unavailable": f"import torch failed: {type(e).__name__}: {e}"}))
    sys.exit(0)


def rss_mb():
    """Peak resident set of this process so far, MB: VmHWM, the high-water mark of its own memory
    map. (getrusage's ru_maxrss survives exec, so it would report the Node parent's RSS at spawn.)"""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024  # kB
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # not Linux: KiB (or bytes on macOS)


def read_safetensors(path):
    """{name: tensor}, metadata: the Hugging Face layout (u64 header length, JSON header, data)."""
    with open(path, "rb") as f:
        raw = f.read()
    (n,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8:8 + n].decode("utf-8"))
    meta = header.pop("__metadata__", {})
    dtypes = {"F32": torch.float32, "I32": torch.int32}
    tensors = {}
    for name, info in header.items():
        a, b = info["data_offsets"]
        t = torch.frombuffer(bytearray(raw[8 + n + a:8 + n + b]), dtype=dtypes[info["dtype"]])
        tensors[name] = t.reshape(info["shape"])
    return tensors, meta


class LayerNorm(nn.Module):
    def __init__(self, ndim, bias):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(ndim))
        self.bias = nn.Parameter(torch.zeros(ndim)) if bias else None

    def forward(self, x):
        return F.layer_norm(x, self.weight.shape, self.weight, self.bias, 1e-5)


class CausalSelfAttention(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        C = cfg["n_embd"]
        self.c_attn = nn.Linear(C, 3 * C, bias=cfg["bias"])
        self.c_proj = nn.Linear(C, C, bias=cfg["bias"])
        self.n_head = cfg["n_head"]
        T = cfg["block_size"]
        self.register_buffer("bias", torch.tril(torch.ones(T, T)).view(1, 1, T, T))

    def forward(self, x):
        B, T, C = x.size()
        hs = C // self.n_head
        q, k, v = self.c_attn(x).split(C, dim=2)
        q, k, v = (t.view(B, T, self.n_head, hs).transpose(1, 2) for t in (q, k, v))
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(hs))
        att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float("-inf"))
        y = F.softmax(att, dim=-1) @ v
        return self.c_proj(y.transpose(1, 2).contiguous().view(B, T, C))


class MLP(nn.Module):
    def __init__(self, cfg, gelu):
        super().__init__()
        C = cfg["n_embd"]
        self.c_fc = nn.Linear(C, 4 * C, bias=cfg["bias"])
        self.gelu = nn.GELU(approximate="tanh" if gelu == "tanh" else "none")
        self.c_proj = nn.Linear(4 * C, C, bias=cfg["bias"])

    def forward(self, x):
        return self.c_proj(self.gelu(self.c_fc(x)))


class Block(nn.Module):
    def __init__(self, cfg, gelu):
        super().__init__()
        self.ln_1 = LayerNorm(cfg["n_embd"], cfg["bias"]) if cfg["layer_norm"] else nn.Identity()
        self.attn = CausalSelfAttention(cfg)
        self.has_mlp = cfg["mlp"]
        if self.has_mlp:
            self.ln_2 = LayerNorm(cfg["n_embd"], cfg["bias"]) if cfg["layer_norm"] else nn.Identity()
            self.mlp = MLP(cfg, gelu)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        if self.has_mlp:
            x = x + self.mlp(self.ln_2(x))
        return x


class GPT(nn.Module):
    def __init__(self, cfg, gelu):
        super().__init__()
        self.transformer = nn.ModuleDict(dict(
            wte=nn.Embedding(cfg["vocab_size"], cfg["n_embd"]),
            wpe=nn.Embedding(cfg["block_size"], cfg["n_embd"]),
            h=nn.ModuleList([Block(cfg, gelu) for _ in range(cfg["n_layer"])]),
            ln_f=LayerNorm(cfg["n_embd"], cfg["bias"]) if cfg["layer_norm"] else nn.Identity(),
        ))
        self.lm_head = nn.Linear(cfg["n_embd"], cfg["vocab_size"], bias=False)
        self.transformer.wte.weight = self.lm_head.weight  # tied: one storage

    def forward(self, idx, targets):
        t = idx.size(1)
        x = self.transformer.wte(idx) + self.transformer.wpe(torch.arange(t))
        for block in self.transformer.h:
            x = block(x)
        logits = self.lm_head(self.transformer.ln_f(x))
        return F.cross_entropy(logits.view(-1, logits.size(-1)), targets.reshape(-1), ignore_index=-1)


def run(path):
    tensors, meta = read_safetensors(path)
    plan = json.loads(meta["plan"])
    cfg, opt = plan["config"], plan["optimizer"]
    model = GPT(cfg, plan["gelu"])
    params = dict(model.named_parameters())  # the tied lm_head.weight is listed once, as wte
    given = {n for n in tensors if n not in ("tokens", "targets")}
    if given != set(params):
        raise SystemExit(f"train_torch: parameter names differ: missing {sorted(set(params) - given)}, "
                         f"unexpected {sorted(given - set(params))}")
    with torch.no_grad():
        for name, p in params.items():
            p.copy_(tensors[name])
    # nanoGPT's configure_optimizers: every parameter of dim >= 2 decays, biases and norms do not.
    groups = [{"params": [p for p in params.values() if p.dim() >= 2], "weight_decay": opt["weightDecay"]},
              {"params": [p for p in params.values() if p.dim() < 2], "weight_decay": 0.0}]
    optimizer = torch.optim.AdamW(groups, lr=opt["lr"], betas=tuple(opt["betas"]), eps=opt["eps"])
    tokens, targets = tensors["tokens"].long(), tensors["targets"].long()
    losses, norms, ms = [], [], []
    for i in range(tokens.shape[0]):
        t0 = time.perf_counter()
        loss = model(tokens[i], targets[i])
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        norm = torch.nn.utils.clip_grad_norm_(model.parameters(), opt["clip"]) if opt["clip"] > 0 else None
        optimizer.step()
        losses.append(loss.item())
        ms.append((time.perf_counter() - t0) * 1000)
        norms.append(None if norm is None else norm.item())
    return {"losses": losses, "gradNorms": norms, "stepMs": ms, "rssPeakMB": rss_mb()}


def main():
    torch.set_num_threads(1)
    baseline = rss_mb()
    runs = [run(p) for p in sys.argv[1:]]
    print(json.dumps({"torch": torch.__version__, "threads": torch.get_num_threads(),
                      "blas": os.path.realpath("/usr/lib/x86_64-linux-gnu/libblas.so.3"),
                      "rssBaselineMB": baseline, "runs": runs}))


if __name__ == "__main__":
    main()
