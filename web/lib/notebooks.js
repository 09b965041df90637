// The five seed notebooks, cell by cell: the PyTorch each cell runs (written by us, short, in the
// seeds' style, and runnable top to bottom as one script), what it teaches, the tensors it makes —
// computed live by the engine with PyTorch's own random numbers (engine.torchGenerator) — and the
// numbers the seed printed where it printed them, with the seed's errata shown beside ours.
//
// A notebook is {id, title, source, intro, seed, cells}. A cell is {label, code, text, run(nb),
// printed?: [{name, values, decimals}], erratum?}. run(nb) reads and writes the notebook's
// variables in nb (nb.engine, nb.g the generator, nb.vars) and returns the outputs to show:
// [{name, value: {shape, data}, kind?: 'weights'|'signed', note?}]. Pure over the engine.
import { full, transpose, concatRows, take, reshape } from './tensors.js';
import { pyFloat, pyString } from './matrix-formats.js';

const T = (shape, data) => ({ shape, data: Float32Array.from(data.flat(Infinity)) });
const out = (name, value, extra = {}) => ({ name, value, ...extra });

// ---------------------------------------------------------------------------------------------
// Seed 000: attention unravelled into loops.

const seed000 = {
  id: '000',
  title: 'Attention, unravelled into loops',
  source: 'notebook 0',
  seed: 0,
  intro:
    'The matrix form of attention hides three loops. This notebook writes them out and checks that loops and matrices agree. It never fixes a random seed, so its numbers cannot be reproduced; we fix torch.manual_seed(0) and say so.',
  cells: [
    {
      label: 'seed',
      code: 'torch.manual_seed(0)  # the notebook is unseeded: we fix a seed so the numbers can be checked',
      text: 'Every random number below comes from PyTorch’s generator after this seed, drawn in the page exactly as PyTorch draws it.',
      run: () => [],
    },
    {
      label: 'x',
      code: 'x = torch.randn(10, 256)  # 10 tokens, each a 256-number embedding',
      text: 'Ten tokens with random 256-wide embeddings (only a corner is drawn here).',
      run(nb) {
        nb.vars.x = nb.g.randn([10, 256]);
        return [out('x', nb.vars.x)];
      },
    },
    {
      label: 'projections',
      code: 'q_proj = nn.Linear(256, 64)\nk_proj = nn.Linear(256, 64)\nv_proj = nn.Linear(256, 64)\nqueries, keys, values = q_proj(x), k_proj(x), v_proj(x)  # (10, 64) each',
      text: 'Three linear layers, each with a bias, make queries, keys and values. nn.Linear stores its weight as (out, in) and computes x·Wᵀ + b.',
      run(nb) {
        const v = nb.vars;
        [v.q_proj, v.k_proj, v.v_proj] = [0, 1, 2].map(() => nb.g.linear(256, 64, { bias: true }));
        const proj = (layer) => nb.engine.project({ x: v.x, w: transpose(layer.weight), b: layer.bias });
        [v.queries, v.keys, v.values] = [v.q_proj, v.k_proj, v.v_proj].map((l) => proj(l));
        return [out('queries', v.queries), out('keys', v.keys), out('values', v.values)];
      },
    },
    {
      label: 'vectorised',
      code: 'att = F.softmax(queries @ keys.transpose(-2, -1), dim=-1)  # no scaling in this notebook\nout_vectorized = att @ values',
      text: 'The matrix form: every query against every key at once, a softmax per row, then a weighted sum of the value rows. This notebook does not divide by √dₖ.',
      run(nb) {
        const v = nb.vars;
        const args = {
          x: v.x,
          wq: transpose(v.q_proj.weight),
          bq: v.q_proj.bias,
          wk: transpose(v.k_proj.weight),
          bk: v.k_proj.bias,
          wv: transpose(v.v_proj.weight),
          bv: v.v_proj.bias,
          scale: false,
        };
        const t = nb.engine.attend({ ...args, kernel: 'vectorized' });
        v.out_vectorized = t.output;
        v.args = args;
        return [out('att', t.weights, { kind: 'weights' }), out('out_vectorized', t.output)];
      },
    },
    {
      label: 'loops',
      code: 'out_looped = torch.zeros(10, 64)\nfor row, a in enumerate(att):\n    out_looped[row] = sum(a[j] * values[j] for j in range(10))\ntorch.allclose(out_vectorized, out_looped, atol=0.000001)',
      text: 'The same numbers from plain loops: the page’s reference kernel runs the notebook’s loops one number at a time; the vectorised result above came from whole-matrix products. Their largest difference is float32 rounding.',
      run(nb) {
        const v = nb.vars;
        const looped = nb.engine.attend({ ...v.args, kernel: 'reference' });
        const simd = nb.engine.attend({ ...v.args, kernel: 'simd' });
        v.out_looped = looped.output;
        const diff = (a, b) => a.data.reduce((m, x, i) => Math.max(m, Math.abs(x - b.data[i])), 0);
        return [
          out('out_looped', looped.output),
          out('largest difference', null, {
            note: `reference loops vs vectorised: ${diff(looped.output, v.out_vectorized).toExponential(1)}; reference loops vs the SIMD kernel: ${diff(looped.output, simd.output).toExponential(1)} — allclose(atol=1e-6) is ${diff(looped.output, v.out_vectorized) <= 1e-6}`,
          }),
        ];
      },
    },
    {
      label: 'causal',
      code: "causal_mask = torch.tril(torch.ones(10, 10))\natt = (queries @ keys.transpose(-2, -1)).masked_fill(causal_mask == 0, float('-inf'))\nout_causal = F.softmax(att, dim=-1) @ values",
      text: 'Language models generate one token at a time, so while training no token may look at the tokens after it: the scores above the diagonal become −∞ and their weights exactly 0. The loops skip those dot products.',
      run(nb) {
        const t = nb.engine.attend({ ...nb.vars.args, causal: true });
        return [out('causal weights', t.weights, { kind: 'weights' }), out('out_causal', t.output)];
      },
    },
  ],
};

// ---------------------------------------------------------------------------------------------
// Seed 001: from averages to multi-head attention (torch.manual_seed(42)).

const X_001 = [
  [0.3367, 0.1288, 0.2345, 0.2303, -1.1229],
  [-0.1863, 2.2082, -0.638, 0.4617, 0.2674],
  [0.5349, 0.8094, 1.1103, -1.6898, -0.989],
];

const seed001 = {
  id: '001',
  title: 'From averages to many heads',
  source: 'notebook 1',
  seed: 42,
  intro:
    'Averages first, then naive attention X·Xᵀ, then keys, queries and values, scaling, the mask, dropout, a batch dimension and finally several heads at once. Seeded with torch.manual_seed(42): every printed number is reproduced below, and where the notebook ran cells it does not show, we draw the same numbers it drew in between.',
  cells: [
    { label: '[2]', code: 'torch.manual_seed(42)', text: '', run: () => [] },
    {
      label: '[5]',
      code: 'X = torch.randn(3, 5)  # three tokens, five numbers each',
      text: 'Three token vectors x₀, x₁, x₂.',
      run(nb) {
        nb.vars.X = nb.g.randn([3, 5]);
        return [out('X', nb.vars.X)];
      },
      printed: [{ name: 'X', values: X_001, decimals: 4 }],
    },
    {
      label: '[6] [7]',
      code: 'avg_01 = 1 / 2 * X[0] + 1 / 2 * X[1]\navg_012 = 1 / 3 * X[0] + 1 / 3 * X[1] + 1 / 3 * X[2]',
      text: 'The simplest way for tokens to share information: average them. Every token weighs the same — the dullest rule, and the one attention improves on by learning the weights.',
      run(nb) {
        const loop = nb.engine.averaging({ x: nb.vars.X }).loop;
        return [out('avg_01', take(loop, 1)), out('avg_012', take(loop, 2))];
      },
      printed: [
        { name: 'avg_01', values: [0.0752, 1.1685, -0.2018, 0.346, -0.4278], decimals: 4 },
        { name: 'avg_012', values: [0.2284, 1.0488, 0.2356, -0.3326, -0.6148], decimals: 4 },
      ],
    },
    {
      label: '[15]',
      code: 'S = X @ X.T  # naive attention: every token against every token',
      text: 'Naive attention scores each pair of tokens by their dot product. Its flaw shows on the diagonal: a token always matches itself best (the largest number in each row is its own), so it mostly attends to itself.',
      run(nb) {
        const t = nb.engine.attend({ x: nb.vars.X, scale: false });
        nb.vars.naive = t;
        return [out('S', t.scores)];
      },
      printed: [
        {
          name: 'S',
          values: [
            [1.4988, -0.1217, 1.2659],
            [-0.1217, 5.6025, -0.0653],
            [1.2659, -0.0653, 6.0074],
          ],
          decimals: 4,
        },
      ],
    },
    {
      label: '[16]',
      code: 'W = torch.softmax(S, dim=1)',
      text: 'Softmax turns each row of scores into weights that sum to 1.',
      erratum:
        'The notebook writes torch.softmax(W, dim=1), a W not yet defined at that point; it means S, and its printed numbers are softmax(S).',
      run: (nb) => [out('W', nb.vars.naive.weights, { kind: 'weights' })],
      printed: [
        {
          name: 'W',
          values: [
            [0.5025, 0.0994, 0.3981],
            [0.0032, 0.9933, 0.0034],
            [0.0086, 0.0023, 0.9891],
          ],
          decimals: 4,
        },
      ],
    },
    {
      label: '[24]',
      code: 'Y = W @ X  # each row: the weighted sum of the token vectors',
      text: 'Row i of W·X mixes the token vectors with row i’s weights — dominated by token i itself, as the diagonal warned.',
      run: (nb) => [out('Y', nb.vars.naive.output)],
      printed: [
        {
          name: 'Y',
          values: [
            [0.3636, 0.6064, 0.4964, -0.5111, -0.9314],
            [-0.1822, 2.1967, -0.6292, 0.4535, 0.2585],
            [0.5315, 0.8067, 1.0987, -1.6683, -0.9873],
          ],
          decimals: 4,
        },
      ],
    },
    {
      label: '[25] [39]',
      code: 'W_K = torch.randn(5, 4)\nW_Q = torch.randn(5, 4)\nW_V = torch.randn(5, 4)  # the notebook runs this cell before the dropout cell, though it prints it after',
      text: 'Random matrices stand in for learned ones: keys say what a token offers, queries what it looks for, values what it passes on.',
      run(nb) {
        const v = nb.vars;
        [v.W_K, v.W_Q, v.W_V] = [0, 1, 2].map(() => nb.g.randn([5, 4]));
        return [out('W_K', v.W_K), out('W_Q', v.W_Q), out('W_V', v.W_V)];
      },
    },
    {
      label: '[26] [28] [40]',
      code: 'K = X @ W_K\nQ = X @ W_Q\nV = X @ W_V',
      text: 'Each token’s key, query and value.',
      run(nb) {
        const v = nb.vars;
        const t = nb.engine.attend({ x: v.X, wq: v.W_Q, wk: v.W_K, wv: v.W_V });
        v.kqv = t;
        return [out('K', t.k), out('Q', t.q), out('V', t.v)];
      },
      printed: [
        {
          name: 'K',
          values: [
            [0.6023, -0.726, 1.1799, 0.2383],
            [-0.6521, 4.4224, -3.746, -1.2657],
            [-0.7106, -4.3429, 4.2984, -2.3664],
          ],
          decimals: 4,
        },
        {
          name: 'Q',
          values: [
            [-1.6964, 1.3355, -0.5133, 0.0674],
            [1.6595, -0.4445, -0.1917, 1.7729],
            [-0.165, -2.9899, -3.8893, 1.2756],
          ],
          decimals: 4,
        },
        {
          name: 'V',
          values: [
            [-0.9285, 0.3301, 1.8359, -1.3448],
            [0.4676, -0.1512, -0.5678, 0.8648],
            [0.6143, 2.6772, -1.3256, -3.2423],
          ],
          decimals: 4,
        },
      ],
    },
    {
      label: '[42] [43] [44]',
      code: 'S = Q @ K.T\nS_scaled = S / (4 ** 0.5)  # ÷√dₖ with dₖ = 4\nW = torch.softmax(S_scaled, dim=1)',
      text: 'Scores now compare queries with keys. Dividing by √dₖ keeps them from growing with the width; without it this softmax would be even closer to all-or-nothing (row 0 already puts 0.996 on one key).',
      run: (nb) => [
        out('S', nb.vars.kqv.scores),
        out('S_scaled', nb.vars.kqv.scaled),
        out('W', nb.vars.kqv.weights, { kind: 'weights' }),
      ],
      printed: [
        {
          name: 'S',
          values: [
            [-2.5809, 8.8498, -6.96],
            [1.5185, -4.5739, -4.2686],
            [-2.2135, -0.1601, -6.6347],
          ],
          decimals: 4,
        },
        {
          name: 'S_scaled',
          values: [
            [-1.2905, 4.4249, -3.48],
            [0.7593, -2.2869, -2.1343],
            [-1.1067, -0.0801, -3.3173],
          ],
          decimals: 4,
        },
        {
          name: 'W',
          values: [
            [3.283e-3, 9.9635e-1, 3.6758e-4],
            [9.0669e-1, 4.3103e-2, 5.0212e-2],
            [2.5632e-1, 7.1558e-1, 2.8102e-2],
          ],
          significant: 5,
        },
      ],
    },
    {
      label: '[45]',
      code: 'R = W @ V',
      text: 'The output: each token’s new vector, a weighted mix of the value vectors (its own included).',
      run: (nb) => [out('R', nb.vars.kqv.output)],
      printed: [
        {
          name: 'R',
          values: [
            [0.463, -0.1485, -0.5602, 0.8561],
            [-0.7909, 0.4272, 1.5735, -1.3448],
            [0.1138, 0.0517, 0.027, 0.1831],
          ],
          decimals: 4,
        },
      ],
    },
    {
      label: '[60] [61] [63]',
      code: "mask = torch.tril(torch.ones(3, 3))\nmasked_S = S_scaled.masked_fill(mask == 0, float('-inf'))\nmasked_W = torch.softmax(masked_S, dim=1)\nmasked_S_twice = masked_S / (4 ** 0.5)  # the notebook's second ÷√dₖ\nmasked_W_twice = torch.softmax(masked_S_twice, dim=1)",
      text: 'At generation time a token cannot see the tokens after it, so while training it must not either: scores above the diagonal become −∞, and their weights exactly 0.',
      erratum:
        'The notebook divides masked_S by √dₖ again ([61]), so its printed numbers use 1/dₖ = 1/4 instead of 1/√dₖ: the “_twice” tensors reproduce them, masked_W has the one division the formula asks for.',
      run(nb) {
        const v = nb.vars;
        const args = { x: v.X, wq: v.W_Q, wk: v.W_K, wv: v.W_V, causal: true };
        const once = nb.engine.attend(args);
        const twice = nb.engine.attend({ ...args, scale: 0.25 });
        v.masked_W = once.weights;
        v.masked_W_twice = twice.weights;
        return [
          out('masked_S', once.masked),
          out('masked_W', once.weights, { kind: 'weights' }),
          out('masked_S_twice', twice.masked, { note: 'the notebook’s: ÷√dₖ twice' }),
          out('masked_W_twice', twice.weights, { kind: 'weights', note: 'the notebook’s: ÷√dₖ twice' }),
        ];
      },
      printed: [
        {
          name: 'masked_S',
          values: [
            [-1.2905, -Infinity, -Infinity],
            [0.7593, -2.2869, -Infinity],
            [-1.1067, -0.0801, -3.3173],
          ],
          decimals: 4,
        },
        {
          name: 'masked_S_twice',
          values: [
            [-0.6452, -Infinity, -Infinity],
            [0.3796, -1.1435, -Infinity],
            [-0.5534, -0.04, -1.6587],
          ],
          decimals: 4,
        },
        {
          name: 'masked_W_twice',
          values: [
            [1, 0, 0],
            [0.821, 0.179, 0],
            [0.3331, 0.5566, 0.1103],
          ],
          decimals: 4,
        },
      ],
    },
    {
      label: '[66]',
      code: 'state = torch.get_rng_state()  # draw the dropout mask without moving the notebook’s stream\ndropped = nn.Dropout(0.5)(masked_W)\ntorch.set_rng_state(state)',
      text: 'Dropout, only while training: each weight is kept with probability 1 − p and scaled by 1/(1 − p), or set to 0. A row no longer sums to 1 — on average it still does.',
      erratum:
        'The notebook’s mask ([[2, 0, 0], [0, 0, 0], [0, 1.1132, 0.2206]]) came from a PyTorch build with MKL, whose Bernoulli draw differs from this build’s (Debian’s python3-torch has no MKL), and from hidden cells’ draws before it; it cannot be redrawn here. This is this build’s mask for the same weights.',
      run(nb) {
        const v = nb.vars;
        // A second generator at the same point of the stream plays torch.get_rng_state().
        const g = nb.engine.torchGenerator(42);
        g.randn([3, 5]);
        for (let k = 0; k < 3; k++) g.randn([5, 4]);
        const d = g.dropout(v.masked_W, 0.5);
        g.dispose();
        return [out('dropped', d.output, { kind: 'weights' })];
      },
    },
    {
      label: '[67]',
      code: '_ = torch.rand(61)  # the draws of cells the notebook ran but does not show (61 words of the stream)\nX = torch.randn(2, 3, 5)  # a batch of two sequences',
      text: 'A batch dimension: B sequences of T tokens of width D, here (2, 3, 5). Everything runs per sequence.',
      run(nb) {
        nb.g.skip(61);
        nb.vars.Xb = nb.g.randn([2, 3, 5]);
        return [out('X', nb.vars.Xb)];
      },
      printed: [
        {
          name: 'X',
          values: [
            [
              [-0.4249, 0.9442, -0.1849, 1.0608, 0.2083],
              [-0.5778, 0.3255, -0.8146, -0.7599, -2.0461],
              [-1.5295, 0.4049, 0.6319, 0.3125, 1.9892],
            ],
            [
              [-0.4611, -0.0639, -1.3667, 0.3298, -0.9827],
              [0.3018, 0.1787, 0.4097, -1.5754, 2.2508],
              [1.0012, 1.3642, 0.6333, 0.405, 0.3416],
            ],
          ],
          decimals: 4,
        },
      ],
    },
    {
      label: '[70] [71] [78]',
      code: "_ = torch.rand(60)  # an earlier run of the next cell\nW_Q = nn.Linear(5, 4, bias=False)\nW_K = nn.Linear(5, 4, bias=False)\nW_V = nn.Linear(5, 4, bias=False)\nS = W_Q(X) @ W_K(X).transpose(1, 2)  # (2, 3, 3): one score matrix per sequence\nmasked_S = S.masked_fill(torch.tril(torch.ones(3, 3)) == 0, float('-inf'))",
      text: 'nn.Linear layers instead of bare matrices; transpose(1, 2) swaps the last two axes of K, leaving the batch axis alone.',
      run(nb) {
        const v = nb.vars;
        nb.g.skip(60);
        const [wq, wk, wv] = [0, 1, 2].map(() => nb.g.linear(5, 4, { bias: false }).weight);
        const args = { x: v.Xb, wqkv: concatRows(wq, wk, wv), scale: false };
        const t = nb.engine.attend(args);
        const m = nb.engine.attend({ ...args, causal: true });
        const perBatch = (x) => reshape(x, [2, 3, 3]); // (B, H = 1, T, T) → (B, T, T)
        return [out('S', perBatch(t.scores)), out('masked_S', perBatch(m.masked))];
      },
      printed: [
        {
          name: 'S',
          values: [
            [
              [0.1268, 0.1442, 0.5098],
              [-0.1395, -0.4737, -0.1583],
              [-0.0595, 0.8114, 0.3408],
            ],
            [
              [0.0802, 0.3535, 0.3662],
              [-0.1526, 0.1022, -0.3185],
              [0.063, 0.1827, -0.6134],
            ],
          ],
          decimals: 4,
        },
        {
          name: 'masked_S',
          values: [
            [
              [0.1268, -Infinity, -Infinity],
              [-0.1395, -0.4737, -Infinity],
              [-0.0595, 0.8114, 0.3408],
            ],
            [
              [0.0802, -Infinity, -Infinity],
              [-0.1526, 0.1022, -Infinity],
              [0.063, 0.1827, -0.6134],
            ],
          ],
          decimals: 4,
        },
      ],
    },
    {
      label: '[30] [31] [47]',
      code: 'torch.manual_seed(42)\n_ = torch.rand(1305)  # the class, the list of heads and hidden cells, run before these\nX = torch.randn(2, 3, 4)\nW_K, W_Q, W_V = torch.randn(4, 4), torch.randn(4, 4), torch.randn(4, 4)\nK_view = (X @ W_K).view(2, 3, 2, 2).transpose(1, 2)  # (B, T, H·hs) → (B, H, T, hs)\nQ_view = (X @ W_Q).view(2, 3, 2, 2).transpose(1, 2)\nS = Q_view @ K_view.transpose(2, 3)  # (2, 2, 3, 3): one score matrix per sequence and head',
      text: 'Several heads at once: view(B, T, H, hs) cuts each query and key into H pieces of hs numbers, transpose(1, 2) makes the head an axis of its own, and one product scores every head of every sequence: (B, H, T, T).',
      run(nb) {
        const v = nb.vars;
        const g = nb.engine.torchGenerator(42);
        g.skip(1305);
        v.Xh = g.randn([2, 3, 4]);
        [v.WhK, v.WhQ, v.WhV] = [0, 1, 2].map(() => g.randn([4, 4]));
        g.dispose();
        v.heads = { x: v.Xh, wq: v.WhQ, wk: v.WhK, wv: v.WhV, heads: 2, causal: true };
        const t = nb.engine.attend({ ...v.heads, causal: false, scale: false });
        return [out('S[0]', take(t.scores, 0), { note: 'sequence 0: its two heads' })];
      },
      printed: [
        {
          name: 'S[0]',
          values: [
            [
              [-2.7366, -1.1301, -2.707],
              [2.1529, 0.7935, 1.6183],
              [-6.5526, -2.3705, -4.6866],
            ],
            [
              [-0.3216, 3.0144, -13.2677],
              [-0.6322, -1.1477, -0.0831],
              [-0.2841, 1.0993, -5.9737],
            ],
          ],
          decimals: 4,
        },
      ],
    },
    {
      label: '[53] [55]',
      code: "masked_S = S.masked_fill(torch.tril(torch.ones(3, 3)) == 0, float('-inf')) / (2 ** 0.5)  # ÷√hs, hs = 2\nW = torch.softmax(masked_S, dim=-1)\nmasked_S_twice = S.masked_fill(torch.tril(torch.ones(3, 3)) == 0, float('-inf')) / 4  # the notebook's ÷√4, done twice\nW_twice = torch.softmax(masked_S_twice, dim=-1)",
      text: 'Each head scales by the square root of its own size hs = 2, masks and takes its own softmax.',
      erratum:
        'The notebook divides by K.shape[-1] ** 0.5 = √4, the width of all heads together, not one head’s √2 — and the printed masked scores show it was applied twice (÷4). “twice” shows the notebook’s numbers, W ours.',
      run(nb) {
        const v = nb.vars;
        const ours = nb.engine.attend(v.heads);
        const seeds = nb.engine.attend({ ...v.heads, scale: 0.25 });
        return [
          out('W[0]', take(ours.weights, 0), { kind: 'weights' }),
          out('masked_S_twice[0]', take(seeds.masked, 0), { note: 'the notebook’s: ÷4' }),
          out('W_twice[0]', take(seeds.weights, 0), { kind: 'weights', note: 'the notebook’s: ÷4' }),
        ];
      },
      printed: [
        {
          name: 'masked_S_twice[0]',
          values: [
            [
              [-0.6841, -Infinity, -Infinity],
              [0.5382, 0.1984, -Infinity],
              [-1.6381, -0.5926, -1.1716],
            ],
            [
              [-0.0804, -Infinity, -Infinity],
              [-0.1581, -0.2869, -Infinity],
              [-0.071, 0.2748, -1.4934],
            ],
          ],
          decimals: 4,
        },
        {
          name: 'W_twice[0]',
          values: [
            [
              [1, 0, 0],
              [0.5842, 0.4158, 0],
              [0.1838, 0.523, 0.2931],
            ],
            [
              [1, 0, 0],
              [0.5322, 0.4678, 0],
              [0.3767, 0.5324, 0.0908],
            ],
          ],
          decimals: 4,
        },
      ],
    },
    {
      label: '[72] [75]',
      code: 'V_view = (X @ W_V).view(2, 3, 2, 2).transpose(1, 2)\nR = (W @ V_view).transpose(1, 2).contiguous().view(2, 3, 4)  # heads side by side again',
      text: 'Each head’s weighted sum of its values, then transpose back and view as (B, T, H·hs): the heads’ outputs concatenated.',
      run(nb) {
        const t = nb.engine.attend(nb.vars.heads);
        return [out('R', t.merged)];
      },
    },
  ],
};

// ---------------------------------------------------------------------------------------------
// Seed 002: averaging three ways, then one causal head.

const seed002 = {
  id: '002',
  title: 'Averaging three ways, then one head',
  source: 'notebook 2',
  seed: 42,
  intro:
    'A bag of words: each token becomes the average of itself and the tokens before it, written as a loop, as a product with a triangular matrix, and as a softmax of masked zeros — the last form is attention with all scores equal. Then one causal self-attention head with learned-size projections.',
  cells: [
    {
      label: '[3]',
      code: 'torch.manual_seed(42)\nB, T, C = 4, 8, 2  # batch, time, channels\nx = torch.randn(B, T, C)',
      text: 'Four sequences of eight tokens, two numbers each.',
      run(nb) {
        nb.vars.x = nb.g.randn([4, 8, 2]);
        return [out('x', nb.vars.x)];
      },
    },
    {
      label: '[6] [12] [17]',
      code: "xbow = torch.zeros((B, T, C))\nfor b in range(B):\n    for t in range(T):\n        xbow[b, t] = torch.mean(x[b, :t + 1], 0)\ntril = torch.tril(torch.ones(T, T))\nweight = tril / tril.sum(1, keepdim=True)\nxbow2 = weight @ x\nweight3 = F.softmax(torch.zeros((T, T)).masked_fill(tril == 0, float('-inf')), dim=-1)\nxbow3 = weight3 @ x",
      text: 'The loop averages the past directly; the matrix holds 1/(t + 1) in the first t + 1 places of row t; the softmax of zeros with the future at −∞ gives exactly those weights.',
      run(nb) {
        const a = nb.engine.averaging({ x: nb.vars.x });
        const diff = (p, q) => p.data.reduce((m, v, i) => Math.max(m, Math.abs(v - q.data[i])), 0);
        return [
          out('weight', a.trilWeights, { kind: 'weights' }),
          out('weight3', a.softmaxWeights, { kind: 'weights' }),
          out('agree', null, {
            note: `largest difference loop vs matrix ${diff(a.loop, a.matmul).toExponential(1)}, loop vs softmax ${diff(a.loop, a.softmax).toExponential(1)}: torch.allclose(xbow, xbow2) and (xbow, xbow3) are True`,
          }),
        ];
      },
      erratum:
        'The notebook’s printed softmax of masked zeros ([[0.2797, 0.1029, …]]) is not that softmax: it used another matrix from an earlier cell. Run in order, the three forms agree, as here.',
    },
    ...[9, 10, 11].map((cellNo, k) => ({
      label: `[${cellNo}]`,
      code: [
        'torch.manual_seed(42)\na = torch.ones(3, 3)\nb = torch.randint(0, 10, (3, 2)).float()\nc = a @ b  # every row: the sum of all rows of b',
        'torch.manual_seed(42)\na = torch.tril(torch.ones(3, 3))\nb = torch.randint(0, 10, (3, 2)).float()\nc = a @ b  # row t: the sum of rows 0 … t',
        'torch.manual_seed(42)\na = torch.tril(torch.ones(3, 3))\na = a / torch.sum(a, 1, keepdim=True)\nb = torch.randint(0, 10, (3, 2)).float()\nc = a @ b  # row t: the average of rows 0 … t',
      ][k],
      text: [
        'A matrix of ones sums the rows of b.',
        'Its lower triangle sums only the rows up to each one.',
        'Normalised rows average them: the bag of words as one product.',
      ][k],
      run(nb) {
        const g = nb.engine.torchGenerator(42);
        const b = g.randint(0, 10, [3, 2]);
        g.dispose();
        const a = full([3, 3], (i) => {
          const r = Math.floor(i / 3),
            col = i % 3;
          if (k === 0) return 1;
          if (col > r) return 0;
          return k === 1 ? 1 : 1 / (r + 1);
        });
        const c = nb.engine.project({ x: a, w: b });
        return [out('a', a), out('b', b), out('c', { shape: c.shape, data: c.data })];
      },
      printed: [
        {
          name: 'b',
          values: [
            [2, 7],
            [6, 4],
            [6, 5],
          ],
          decimals: 0,
        },
        {
          name: 'c',
          values: [
            [
              [14, 16],
              [14, 16],
              [14, 16],
            ],
            [
              [2, 7],
              [8, 11],
              [14, 16],
            ],
            [
              [2, 7],
              [4, 5.5],
              [4.6667, 5.3333],
            ],
          ][k],
          decimals: k === 2 ? 4 : 0,
        },
      ],
    })),
    {
      label: '[37]',
      code: "torch.manual_seed(42)\nB, T, C = 4, 8, 32\nx = torch.randn(B, T, C)\nhead_size = 16\nkey = nn.Linear(C, head_size, bias=False)\nquery = nn.Linear(C, head_size, bias=False)\nvalue = nn.Linear(C, head_size, bias=False)\nk, q = key(x), query(x)  # (B, T, 16)\nweight = (q @ k.transpose(-2, -1)).masked_fill(torch.tril(torch.ones(T, T)) == 0, float('-inf'))\nweight = F.softmax(weight, dim=-1)  # no ÷√head_size in this notebook\noutput = weight @ value(x)",
      text: 'One causal head: each token’s query meets every earlier key, and the learned-size projections decide which earlier tokens matter — no longer a plain average. Each row of weight[0] is a different mix.',
      run(nb) {
        const g = nb.engine.torchGenerator(42);
        const x = g.randn([4, 8, 32]);
        const [key, query, value] = [0, 1, 2].map(() => g.linear(32, 16, { bias: false }).weight);
        g.dispose();
        const t = nb.engine.attend({
          x,
          wq: transpose(query),
          wk: transpose(key),
          wv: transpose(value),
          causal: true,
          scale: false,
        });
        return [
          out('weight[0]', take(take(t.weights, 0), 0), { kind: 'weights' }),
          out('output', t.output, { note: '(4, 8, 16)' }),
        ];
      },
      printed: [
        {
          name: 'weight[0]',
          values: [
            [1, 0, 0, 0, 0, 0, 0, 0],
            [0.1905, 0.8095, 0, 0, 0, 0, 0, 0],
            [0.3742, 0.0568, 0.569, 0, 0, 0, 0, 0],
            [0.1288, 0.338, 0.1376, 0.3956, 0, 0, 0, 0],
            [0.4311, 0.0841, 0.0582, 0.3049, 0.1217, 0, 0, 0],
            [0.0537, 0.3205, 0.0694, 0.2404, 0.2568, 0.0592, 0, 0],
            [0.3396, 0.0149, 0.5165, 0.018, 0.0658, 0.008, 0.0373, 0],
            [0.0165, 0.0375, 0.0144, 0.112, 0.0332, 0.4069, 0.3136, 0.066],
          ],
          decimals: 4,
        },
      ],
    },
  ],
};

// ---------------------------------------------------------------------------------------------
// Seed 003: the bank example. Its words, their vectors and the two sentences are the engine's
// (engine.examples(): the core's one copy, which the page's default state comes from too).
const embed = (nb, tokens) => {
  const vocabulary = nb.examples.vocabulary;
  return T(
    [tokens.length, 4],
    tokens.map((w) => Array.from(vocabulary[w])),
  );
};

const seed003 = {
  id: '003',
  title: 'Two sentences, one “bank”',
  source: 'notebook 3',
  seed: 0,
  intro:
    'The same word in two sentences: an embedding and a plain linear layer give “bank” the same vector in both; self-attention, which mixes in the neighbours, does not. Every printed number is reproduced, the SelfAttention class’s included (three torch.rand(4, 3) after torch.manual_seed(0)).',
  cells: [
    {
      label: 'embed',
      code: 'river_embeddings = embed(["stream", "bank", "mud"])\nfinance_embeddings = embed(["money", "bank", "loan"])',
      text: 'Four numbers per word, fixed by hand. The middle row, “bank”, is the same in both.',
      run(nb) {
        nb.vars.river = embed(nb, nb.examples.contexts.river);
        nb.vars.finance = embed(nb, nb.examples.contexts.finance);
        return [out('river_embeddings', nb.vars.river), out('finance_embeddings', nb.vars.finance)];
      },
    },
    {
      label: 'X W',
      code: 'W = torch.tensor([[1.0, 0.2, 0.0], [0.1, 1.1, 0.0], [0.5, 0.5, 1.0], [0.0, 0.3, 0.8]])\nriver_linear = river_embeddings @ W\nfinance_linear = finance_embeddings @ W',
      text: 'A layer that treats each token alone maps the same “bank” to the same vector.',
      run(nb) {
        const W = T(
          [4, 3],
          [
            [1.0, 0.2, 0.0],
            [0.1, 1.1, 0.0],
            [0.5, 0.5, 1.0],
            [0.0, 0.3, 0.8],
          ],
        );
        const p = (x) => {
          const y = nb.engine.project({ x, w: W });
          return { shape: y.shape, data: y.data };
        };
        return [out('river_linear', p(nb.vars.river)), out('finance_linear', p(nb.vars.finance))];
      },
      printed: [
        {
          name: 'river_linear',
          values: [
            [1.2, 0.33, 0.24],
            [0.98, 1.14, 0.2],
            [0.9, 0.45, 0.72],
          ],
          decimals: 3,
        },
        {
          name: 'finance_linear',
          values: [
            [0.14, 1.57, 0.08],
            [0.98, 1.14, 0.2],
            [0.11, 1.39, 0.48],
          ],
          decimals: 3,
        },
      ],
    },
    {
      label: 'raw attention',
      code: 'river_scores = river_embeddings @ river_embeddings.T\nriver_out = torch.softmax(river_scores, dim=-1) @ river_embeddings\nfinance_scores = finance_embeddings @ finance_embeddings.T\nfinance_out = torch.softmax(finance_scores, dim=-1) @ finance_embeddings',
      text: 'Raw dot-product attention, no projections and no scaling: now “bank” takes in its neighbours and the two copies differ.',
      run(nb) {
        const r = nb.engine.attend({ x: nb.vars.river, scale: false });
        const f = nb.engine.attend({ x: nb.vars.finance, scale: false });
        return [
          out('river_scores', r.scores),
          out('finance_scores', f.scores),
          out('river_out', r.output),
          out('finance_out', f.output),
        ];
      },
      printed: [
        {
          name: 'river_scores',
          values: [
            [1.53, 0.96, 1.35],
            [0.96, 1.32, 0.72],
            [1.35, 0.72, 1.62],
          ],
          decimals: 3,
        },
        {
          name: 'finance_scores',
          values: [
            [1.97, 1.12, 1.6],
            [1.12, 1.32, 0.88],
            [1.6, 0.88, 1.57],
          ],
          decimals: 3,
        },
        {
          name: 'river_out',
          values: [
            [1.001, 0.188, 0.047, 0.438],
            [0.949, 0.356, 0.089, 0.313],
            [0.987, 0.15, 0.037, 0.52],
          ],
          decimals: 3,
        },
        {
          name: 'finance_out',
          values: [
            [0.161, 1.181, 0.04, 0.243],
            [0.325, 1.078, 0.081, 0.19],
            [0.158, 1.163, 0.04, 0.278],
          ],
          decimals: 3,
        },
      ],
    },
    {
      label: 'projections',
      code: 'W_query = torch.tensor([[1.0, 0.0], [0.0, 1.0], [0.2, 0.2], [0.0, 0.0]])\nW_key = torch.tensor([[1.0, 0.0], [0.0, 1.0], [0.0, 0.0], [0.1, 0.1]])\nW_value = torch.tensor([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [0.0, 0.0, 0.5]])\nriver_proj = torch.softmax((river_embeddings @ W_query) @ (river_embeddings @ W_key).T / math.sqrt(2), dim=-1) @ (river_embeddings @ W_value)\nfinance_proj = torch.softmax((finance_embeddings @ W_query) @ (finance_embeddings @ W_key).T / math.sqrt(2), dim=-1) @ (finance_embeddings @ W_value)',
      text: 'Queries, keys and values through three matrices (set by hand here; a model learns them), and the scores divided by √dₖ = √2.',
      run(nb) {
        const w = {
          wq: T(
            [4, 2],
            [
              [1, 0],
              [0, 1],
              [0.2, 0.2],
              [0, 0],
            ],
          ),
          wk: T(
            [4, 2],
            [
              [1, 0],
              [0, 1],
              [0, 0],
              [0.1, 0.1],
            ],
          ),
          wv: T(
            [4, 3],
            [
              [1, 0, 0],
              [0, 1, 0],
              [0, 0, 1],
              [0, 0, 0.5],
            ],
          ),
        };
        return [
          out('river_proj', nb.engine.attend({ x: nb.vars.river, ...w }).output),
          out('finance_proj', nb.engine.attend({ x: nb.vars.finance, ...w }).output),
        ];
      },
      printed: [
        {
          name: 'river_proj',
          values: [
            [0.992, 0.221, 0.261],
            [0.957, 0.314, 0.256],
            [0.986, 0.232, 0.263],
          ],
          decimals: 3,
        },
        {
          name: 'finance_proj',
          values: [
            [0.188, 1.158, 0.169],
            [0.297, 1.089, 0.18],
            [0.204, 1.146, 0.172],
          ],
          decimals: 3,
        },
      ],
    },
    {
      label: 'SelfAttention',
      code: 'torch.manual_seed(0)\nW_query_r, W_key_r, W_value_r = torch.rand(4, 3), torch.rand(4, 3), torch.rand(4, 3)  # the class’s nn.Parameter(torch.rand(d_in, d_out))\ndef self_attention(x):\n    return torch.softmax((x @ W_query_r) @ (x @ W_key_r).T / math.sqrt(3), dim=-1) @ (x @ W_value_r)\nriver_class = self_attention(river_embeddings)\nfinance_class = self_attention(finance_embeddings)',
      text: 'The recipe as a class with random starting weights: torch.rand fills each matrix with numbers in [0, 1).',
      run(nb) {
        const [wq, wk, wv] = [0, 1, 2].map(() => nb.g.rand([4, 3]));
        return [
          out('river_class', nb.engine.attend({ x: nb.vars.river, wq, wk, wv }).output),
          out('finance_class', nb.engine.attend({ x: nb.vars.finance, wq, wk, wv }).output),
        ];
      },
      printed: [
        {
          name: 'river_class',
          values: [
            [0.54, 0.705, 1.03],
            [0.538, 0.706, 1.03],
            [0.541, 0.703, 1.025],
          ],
          decimals: 3,
        },
        {
          name: 'finance_class',
          values: [
            [0.22, 0.418, 0.642],
            [0.213, 0.404, 0.624],
            [0.216, 0.409, 0.63],
          ],
          decimals: 3,
        },
      ],
    },
  ],
};
seed003.cells.unshift({ label: 'seed', code: 'torch.manual_seed(0)', text: '', run: () => [] });

// ---------------------------------------------------------------------------------------------
// Seed 004: the formula, with a fused qkv projection.

const seed004 = {
  id: '004',
  title: 'The formula, with one fused projection',
  source: 'notebook 4',
  seed: 0,
  intro:
    'softmax(QKᵀ/√d)·V step by step, with the three projections fused into one nn.Linear(n_embd, 3·n_embd) whose output is split into q, k and v, and the causal mask kept as a buffer. The post is unseeded, so its printed numbers cannot be reproduced: we fix torch.manual_seed(0) and show ours.',
  cells: [
    {
      label: 'module',
      code: 'torch.manual_seed(0)  # the post is unseeded: we fix a seed\nattn = nn.Linear(4, 3 * 4)  # weight (12, 4): rows 0–3 make q, 4–7 k, 8–11 v; with a bias',
      text: 'One linear layer computes q, k and v together; split(n_embd, dim=2) cuts its 12 outputs into three groups of 4. The bias adds a learned offset to each.',
      run(nb) {
        nb.vars.attn = nb.g.linear(4, 12, { bias: true });
        return [out('attn.weight', nb.vars.attn.weight), out('attn.bias', nb.vars.attn.bias)];
      },
    },
    {
      label: 'input',
      code: 'sample_input = torch.randn(1, 5, 4)  # one sequence of five tokens',
      text: 'A batch of one: (B, T, C) = (1, 5, 4).',
      run(nb) {
        nb.vars.x = nb.g.randn([1, 5, 4]);
        return [out('sample_input', nb.vars.x)];
      },
    },
    {
      label: 'forward',
      code: "q, k, v = attn(sample_input).split(4, dim=2)\natt = (q @ k.transpose(1, 2)) * (1.0 / math.sqrt(k.size(-1)))\natt = att.masked_fill(torch.tril(torch.ones(5, 5)).view(1, 5, 5) == 0, -float('inf'))\natt = F.softmax(att, dim=-1)\nout = att @ v",
      text: 'Scores scaled by 1/√d with d = 4, the future masked, a softmax per row, then the weighted values.',
      run(nb) {
        const t = nb.engine.attend({ x: nb.vars.x, wqkv: nb.vars.attn.weight, bqkv: nb.vars.attn.bias, causal: true });
        return [out('att', reshape(t.weights, [1, 5, 5]), { kind: 'weights' }), out('out', t.output)];
      },
    },
  ],
};

export const NOTEBOOKS = Object.freeze([seed000, seed001, seed002, seed003, seed004]);

/**
 * Runs every cell of a notebook with a fresh generator: [{cell, outputs, checks}], where checks
 * compare each printed number with ours ({name, ok, worst, printed, ours}).
 */
export function runNotebook(engine, notebook) {
  const nb = { engine, examples: engine.examples(), g: engine.torchGenerator(notebook.seed), vars: {} };
  try {
    return notebook.cells.map((cell) => {
      const outputs = cell.run(nb);
      const checks = (cell.printed ?? []).map((p) =>
        check(
          p,
          outputs.find((o) => o.name === p.name),
        ),
      );
      return { cell, outputs, checks };
    });
  } finally {
    nb.g.dispose();
  }
}

/**
 * Does `output` print as `printed`? To `decimals` places (|ours − printed| ≤ half a unit of the
 * last place, plus float32 rounding), or to `significant` digits for numbers printed in scientific
 * notation; −∞ must be −∞.
 */
export function check(printed, output) {
  const want = [printed.values].flat(Infinity);
  const got = output?.value ? Array.from(output.value.data) : [];
  let worst = 0;
  let ok = got.length === want.length;
  for (let i = 0; ok && i < want.length; i++) {
    const w = want[i],
      g = got[i];
    if (!Number.isFinite(w)) {
      ok = g === w;
      continue;
    }
    const unit = printed.significant
      ? 10 ** (Math.floor(Math.log10(Math.abs(w) || 1)) - printed.significant + 1)
      : 10 ** -printed.decimals;
    // Half a unit of the last printed place, plus float32's own rounding (~1e-6 relative): the
    // notebook's BLAS and ours may round the last bit of a product differently.
    const excess = Math.abs(g - w) / (0.5 * unit + 2 ** -20 * Math.abs(w) + 1e-9);
    worst = Math.max(worst, excess);
    if (excess > 1) ok = false;
  }
  return { name: printed.name, ok, worst, printed: printed.values, ours: got };
}

/**
 * The notebook's cells as one runnable PyTorch script that prints every output as JSON; its BANK
 * (seed 003's vocabulary) is `examples`' (engine.examples()).
 */
export function notebookScript(notebook, examples) {
  const bank = Object.entries(examples.vocabulary)
    .map(([word, vec]) => `${pyString(word)}: [${Array.from(vec, pyFloat).join(', ')}]`)
    .join(', ');
  const head = [
    `# ${notebook.title} (${notebook.source}), as attention-explorer runs it.`,
    '# Run: /usr/bin/python3 this.py   (needs PyTorch)',
    'import json',
    'import math',
    '',
    'import torch',
    'import torch.nn as nn',
    'import torch.nn.functional as F',
    '',
    `BANK = {${bank}}`,
    '',
    '',
    'def embed(tokens):',
    '    return torch.stack([torch.tensor(BANK[t]) for t in tokens])',
    '',
    '',
    'printed = {}',
  ];
  const body = [];
  for (const cell of notebook.cells) {
    body.push('', `# ${cell.label}`, cell.code);
    for (const p of cell.printed ?? []) {
      body.push(`printed[${JSON.stringify(`${cell.label} ${p.name}`)}] = ${p.name}.tolist()`);
    }
  }
  const tail = ['', 'for name, value in printed.items():', '    print(json.dumps([name, value]))', ''];
  return [...head, ...body, ...tail].join('\n');
}
