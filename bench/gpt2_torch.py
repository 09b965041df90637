#!/usr/bin/python3
"""PyTorch peer of bench/gpt2.mjs: the same GPT-2 forward with every attention captured, one thread.

    /usr/bin/python3 bench/gpt2_torch.py FILE.safetensors '{"T": [16, 64], "heads": 12, ...}'

Reads the F32 checkpoint by the safetensors format (no package needed), runs Hugging Face's
GPT-2 arithmetic (Conv1D = addmm with (in, out) weights, gelu_new, LayerNorm eps, scores divided
by √hs, the causal mask, softmax) keeping every layer's q, k, v, scores and weights and the
residual stream, and the last position's logits, as model.trace does; prints JSON: per T the
median, p10, p90 and runs in ms, and the last logits (to check against ours).
"""
import json
import math
import struct
import sys
import time

import torch
import torch.nn.functional as F

torch.set_num_threads(1)


def read_safetensors(path):
    data = bytearray(open(path, 'rb').read())
    (n,) = struct.unpack('<Q', data[:8])
    header = json.loads(data[8:8 + n])
    header.pop('__metadata__', None)
    out = {}
    for name, t in header.items():
        if t['dtype'] != 'F32':
            continue
        b, e = t['data_offsets']
        out[name.replace('transformer.', '', 1)] = torch.frombuffer(data, dtype=torch.float32, count=(e - b) // 4,
                                                                     offset=8 + n + b).reshape(t['shape'])
    return out


@torch.no_grad()
def forward(w, idx, c):
    C, H, L, eps = c['width'], c['heads'], c['layers'], c['eps']
    hs = C // H
    T = idx.numel()
    causal = torch.tril(torch.ones(T, T, dtype=torch.bool))
    x = w['wte.weight'][idx] + w['wpe.weight'][:T]
    kept = [x]
    for l in range(L):
        p = 'h.%d.' % l
        a = F.layer_norm(x, (C,), w[p + 'ln_1.weight'], w[p + 'ln_1.bias'], eps)
        q, k, v = torch.addmm(w[p + 'attn.c_attn.bias'], a, w[p + 'attn.c_attn.weight']).split(C, dim=1)
        q, k, v = (t.view(T, H, hs).transpose(0, 1) for t in (q, k, v))
        scores = torch.matmul(q, k.transpose(-1, -2))
        weights = F.softmax(torch.where(causal, scores / math.sqrt(hs), torch.tensor(float('-inf'))), dim=-1)
        y = torch.matmul(weights, v).transpose(0, 1).reshape(T, C)
        x = x + torch.addmm(w[p + 'attn.c_proj.bias'], y, w[p + 'attn.c_proj.weight'])
        a = F.layer_norm(x, (C,), w[p + 'ln_2.weight'], w[p + 'ln_2.bias'], eps)
        h = torch.addmm(w[p + 'mlp.c_fc.bias'], a, w[p + 'mlp.c_fc.weight'])
        h = 0.5 * h * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (h + 0.044715 * torch.pow(h, 3.0))))
        x = x + torch.addmm(w[p + 'mlp.c_proj.bias'], h, w[p + 'mlp.c_proj.weight'])
        kept += [q, k, v, scores, weights, x]
    last = F.layer_norm(x[-1:], (C,), w['ln_f.weight'], w['ln_f.bias'], eps)
    return F.linear(last, w['wte.weight']), kept


def main():
    path, c = sys.argv[1], json.loads(sys.argv[2])
    w = read_safetensors(path)
    out = []
    for T in c['T']:
        idx = torch.tensor([(i * 7919 + 13) % c['vocabSize'] for i in range(T)])
        logits, _ = forward(w, idx, c)
        times = []
        start = time.perf_counter()
        while len(times) < c['min'] or (len(times) < c['max'] and (time.perf_counter() - start) * 1000 < c['budget']):
            t0 = time.perf_counter()
            forward(w, idx, c)
            times.append((time.perf_counter() - t0) * 1000)
        times.sort()
        q = lambda f: times[min(len(times) - 1, int(f * len(times)))]
        out.append({'T': T, 'median': q(0.5), 'p10': q(0.1), 'p90': q(0.9), 'n': len(times),
                    'logits': logits[0].tolist(), 'version': torch.__version__})
    print(json.dumps(out))


if __name__ == '__main__':
    main()
