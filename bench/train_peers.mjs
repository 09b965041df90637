// The trainers the training benchmark (bench/train.mjs) compares, each a nanoGPT training step:
// forward, cross-entropy on next tokens, backward, clip by global norm, AdamW (PyTorch's
// semantics, nanoGPT's groups: weight decay on parameters of dim ≥ 2 only).
//
// Every trainer in this process is {name, version, start(setup) → session}, a session being
//   {activate()?, step(batch) → {loss, gradNorm}, memory() → [[label, text], …], dispose()}
// so the harness can step all sessions round-robin, one step each per round. PyTorch runs in its
// own process: {name, native: true, trainMany(setups) → runs}, run = {losses, gradNorms, stepMs,
// memory}. setup (built by bench/train.mjs) holds
//   config     {vocabSize, contextLength, layers, heads, width, bias, mlp, layerNorm, dropout: 0}
//   gelu       'erf' (nn.GELU(), exact) or 'tanh' (nanoGPT's old new_gelu)
//   optimizer  {lr, betas: [b1, b2], eps, weightDecay, clip}
//   params     {name: {shape, data: Float32Array}} by nanoGPT's state_dict names, in its order
//   batches    [{tokens, targets}]: Int32Array (batch · context) each, row-major (B, T)
//   batch, context
// The loss of step i is the loss of batch i before that step's update, as nanoGPT's train loop
// logs it.
//
// Shapes below: B batch, T context, C width, H heads, hs = C / H, V vocab.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import * as esbuild from 'esbuild';

const require = createRequire(import.meta.url);
const here = path.dirname(fileURLToPath(import.meta.url));
const MB = 2 ** 20;

// ---------------------------------------------------------------------------------------
// Ours: the engine's GPT model (engine.createModel), when this build of the engine has one.
// Returns {skipped: "<why>"} otherwise.

export async function oursTrainer() {
  const { createEngine } = await import('../web/engine/engine.js');
  const probe = await createEngine();
  if (typeof probe.createModel !== 'function') return { skipped: 'ours: engine has no createModel yet (skipped)' };
  return {
    name: 'ours',
    version: 'engine WASM SIMD128',
    async start(setup) {
      // A fresh engine (its own WASM instance) per run, so heapBytes() is this run's high-water mark.
      const engine = await createEngine();
      const c = setup.config;
      const model = engine.createModel({
        vocabSize: c.vocabSize,
        contextLength: c.contextLength,
        layers: c.layers,
        heads: c.heads,
        width: c.width,
        bias: c.bias,
        dropout: 0,
        mlp: c.mlp,
        layerNorm: c.layerNorm,
        seed: 0,
      });
      model.setParams(setup.params);
      const o = setup.optimizer;
      const options = {
        optimizer: 'adamw',
        lr: o.lr,
        betas: o.betas,
        eps: o.eps,
        weightDecay: o.weightDecay,
        clip: o.clip,
      };
      return {
        step: ({ tokens, targets }) =>
          model.step({ tokens, targets, batch: setup.batch, context: setup.context }, options),
        memory: () => [['WASM heap', `${(engine.heapBytes() / MB).toFixed(1)} MB`]],
        dispose: () => model.dispose(),
      };
    },
  };
}

// ---------------------------------------------------------------------------------------
// TensorFlow.js: the same model written with tfjs ops, differentiated by tf.valueAndGrads, with
// AdamW and clipping written out as torch.optim.AdamW (1.13, single-tensor path) and
// clip_grad_norm_ compute them. One trainer per backend: 'wasm' (XNNPACK, the single-threaded
// SIMD binary) and 'cpu' (plain JavaScript kernels). Both live in one tfjs engine, whose active
// backend runs every op: a session's activate() selects its own.

let tfPromise = null;
function loadTf() {
  tfPromise ??= (async () => {
    const tf = await import('@tensorflow/tfjs-core');
    // tfjs-core's Node bundle has no gradients; they come as ES modules with extensionless
    // imports that Node cannot load, so esbuild bundles them (with the parts of tfjs-core they
    // use). tfjs keeps its engine and its kernel and gradient registries on globalThis, so a
    // second copy registers into the same ones (this is how @tensorflow/tfjs loads them).
    const { outputFiles } = await esbuild.build({
      entryPoints: [require.resolve('@tensorflow/tfjs-core/dist/register_all_gradients.js')],
      bundle: true,
      format: 'esm',
      platform: 'node',
      write: false,
      logLevel: 'error',
    });
    await import('data:text/javascript;base64,' + Buffer.from(outputFiles[0].contents).toString('base64'));
    tf.env().set('PROD', true); // no debug checks, no "install tfjs-node" banner
    await import('@tensorflow/tfjs-backend-cpu');
    const wasm = await import('@tensorflow/tfjs-backend-wasm');
    const dir = path.dirname(require.resolve('@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm-simd.wasm'));
    wasm.setWasmPaths(dir + path.sep);
    tf.env().set('WASM_HAS_MULTITHREAD_SUPPORT', false); // the non-threaded SIMD binary
    return { tf, wasm };
  })();
  return tfPromise;
}

export async function tfjsTrainer(backend) {
  const { tf, wasm } = await loadTf();
  const use = async () => {
    if (!(await tf.setBackend(backend))) throw new Error(`tfjs: the ${backend} backend did not initialise`);
    await tf.ready();
    if (backend === 'wasm' && wasm.getThreadsCount() !== 1)
      throw new Error(`tfjs-wasm: expected 1 thread, got ${wasm.getThreadsCount()}`);
  };
  await use();
  return {
    name: `tfjs-${backend}`,
    version: tf.version_core,
    async start(setup, { profile = false } = {}) {
      await use();
      const trainer = tfjsModel(tf, setup);
      return {
        // Both backends share one tfjs engine: the active one must be this session's before each step.
        activate: () => tf.setBackend(backend),
        step: trainer.step,
        async memory() {
          const memory = [];
          if (profile) {
            // One more step on the last batch (not timed, not compared): the tensor bytes alive at its peak.
            await use();
            const info = await tf.profile(() => trainer.step(setup.batches.at(-1)));
            memory.push(['tensors at peak', `${(info.peakBytes / MB).toFixed(1)} MB`]);
          }
          if (backend === 'wasm') {
            // The wasm backend's heap only grows, and its instance lives for the whole process.
            const bytes = tf.findBackend('wasm').wasm.HEAPU8.buffer.byteLength;
            memory.push(['WASM heap (process high-water)', `${(bytes / MB).toFixed(0)} MB`]);
          }
          return memory;
        },
        dispose: () => trainer.dispose(),
      };
    },
  };
}

// nanoGPT's forward and loss in tfjs ops, and its optimizer step.
function tfjsModel(tf, setup) {
  const { vocabSize: V, layers: L, heads: H, width: C, mlp } = setup.config;
  const B = setup.batch,
    T = setup.context,
    hs = C / H;
  const names = Object.keys(setup.params);
  let P = names.map((n) => tf.tensor(setup.params[n].data, setup.params[n].shape, 'float32'));
  let M = P.map((p) => tf.zerosLike(p));
  let S = P.map((p) => tf.zerosLike(p));
  const decays = names.map((n) => setup.params[n].shape.length >= 2);
  // Additive causal mask (T, T): 0 on and below the diagonal, −1e9 above (exp underflows to 0,
  // exactly what masked_fill(−inf) gives, without inf − inf in the softmax's max subtraction).
  const mask = tf.tidy(() => tf.mul(tf.sub(1, tf.linalg.bandPart(tf.ones([T, T]), -1, 0)), -1e9));
  const gelu =
    setup.gelu === 'tanh'
      ? (x) =>
          tf.mul(
            tf.mul(x, 0.5),
            tf.add(1, tf.tanh(tf.mul(Math.sqrt(2 / Math.PI), tf.add(x, tf.mul(0.044715, tf.pow(x, 3)))))),
          )
      : (x) => tf.mul(tf.mul(x, 0.5), tf.add(1, tf.erf(tf.mul(x, Math.SQRT1_2))));

  function loss(list, tokensOneHot, targetsOneHot) {
    const p = Object.fromEntries(names.map((n, i) => [n, list[i]]));
    // y (B·T, out) = x · Wᵀ + b, nn.Linear's layout: W (out, in).
    const linear = (x, name) => {
      const y = tf.matMul(x, p[`${name}.weight`], false, true);
      return p[`${name}.bias`] ? tf.add(y, p[`${name}.bias`]) : y;
    };
    // F.layer_norm over the last axis, biased variance, eps 1e-5.
    const norm = (x, name) => {
      if (!p[`${name}.weight`]) return x;
      const xc = tf.sub(x, tf.mean(x, -1, true));
      const y = tf.mul(tf.mul(xc, tf.rsqrt(tf.add(tf.mean(tf.square(xc), -1, true), 1e-5))), p[`${name}.weight`]);
      return p[`${name}.bias`] ? tf.add(y, p[`${name}.bias`]) : y;
    };
    // (B·T, C) ↔ (B·H, T, hs)
    const split = (t) => tf.reshape(tf.transpose(tf.reshape(t, [B, T, H, hs]), [0, 2, 1, 3]), [B * H, T, hs]);
    const merge = (t) => tf.reshape(tf.transpose(tf.reshape(t, [B, H, T, hs]), [0, 2, 1, 3]), [B * T, C]);

    // Embeddings: wte[tokens] as one-hot · wte (the wasm backend has no kernel for gather's
    // gradient), plus wpe's first T rows.
    const wpe = p['transformer.wpe.weight'];
    let x = tf.reshape(
      tf.add(
        tf.reshape(tf.matMul(tokensOneHot, p['transformer.wte.weight']), [B, T, C]),
        wpe.shape[0] === T ? wpe : tf.slice(wpe, [0, 0], [T, C]),
      ),
      [B * T, C],
    );
    for (let l = 0; l < L; l++) {
      const h = `transformer.h.${l}`;
      const [q, k, v] = tf.split(linear(norm(x, `${h}.ln_1`), `${h}.attn.c_attn`), 3, 1);
      const scores = tf.add(tf.mul(tf.matMul(split(q), split(k), false, true), 1 / Math.sqrt(hs)), mask);
      x = tf.add(x, linear(merge(tf.matMul(tf.softmax(scores), split(v))), `${h}.attn.c_proj`));
      if (mlp) x = tf.add(x, linear(gelu(linear(norm(x, `${h}.ln_2`), `${h}.mlp.c_fc`)), `${h}.mlp.c_proj`));
    }
    // lm_head tied to wte; mean cross-entropy over the B·T positions.
    const logits = tf.matMul(norm(x, 'transformer.ln_f'), p['transformer.wte.weight'], false, true);
    return tf.div(tf.neg(tf.sum(tf.mul(tf.logSoftmax(logits), targetsOneHot))), B * T);
  }

  const { lr, betas, eps, weightDecay, clip } = setup.optimizer;
  const [b1, b2] = betas;
  let t = 0;
  const valueAndGrads = (tokensOneHot, targetsOneHot) =>
    tf.valueAndGrads((...list) => loss(list, tokensOneHot, targetsOneHot));

  function step({ tokens, targets }) {
    t += 1;
    const bc1 = 1 - b1 ** t,
      bc2 = 1 - b2 ** t;
    const out = tf.tidy(() => {
      const oneHot = (ids) => tf.cast(tf.oneHot(tf.tensor1d(ids, 'int32'), V), 'float32');
      const { value, grads } = valueAndGrads(oneHot(tokens), oneHot(targets))(P);
      // clip_grad_norm_: the norm over all gradients, then g · min(1, clip / (norm + 1e-6)).
      const norm = tf.sqrt(tf.addN(grads.map((g) => tf.sum(tf.square(g)))));
      const coef = clip > 0 ? tf.minimum(1, tf.div(clip, tf.add(norm, 1e-6))) : null;
      const next = grads.map((g0, i) => {
        const g = coef ? tf.mul(g0, coef) : g0;
        const m = tf.add(tf.mul(M[i], b1), tf.mul(g, 1 - b1));
        const s = tf.add(tf.mul(S[i], b2), tf.mul(tf.square(g), 1 - b2));
        const decayed = decays[i] ? tf.mul(P[i], 1 - lr * weightDecay) : P[i];
        const denom = tf.add(tf.div(tf.sqrt(s), Math.sqrt(bc2)), eps);
        return [tf.sub(decayed, tf.mul(tf.div(m, denom), lr / bc1)), m, s];
      });
      return { value, norm, next };
    });
    for (const list of [P, M, S]) list.forEach((x) => x.dispose());
    P = out.next.map((x) => x[0]);
    M = out.next.map((x) => x[1]);
    S = out.next.map((x) => x[2]);
    const loss = out.value.dataSync()[0],
      gradNorm = out.norm.dataSync()[0];
    out.value.dispose();
    out.norm.dispose();
    return { loss, gradNorm };
  }

  return {
    step,
    dispose() {
      [...P, ...M, ...S, mask].forEach((x) => x.dispose());
    },
  };
}

// ---------------------------------------------------------------------------------------
// PyTorch, natively, one thread: bench/train_torch.py under Debian's /usr/bin/python3. The plan
// travels as a safetensors file; the script times each step itself (no process boundary inside
// the timed region). torchTrainer() returns {skipped} when `import torch` fails.

const PYTHON = '/usr/bin/python3';
const SCRIPT = path.join(here, 'train_torch.py');
// One thread for torch's own pool and for the OpenMP/OpenBLAS underneath it.
const ENV = { ...process.env, OMP_NUM_THREADS: '1', OPENBLAS_NUM_THREADS: '1', MKL_NUM_THREADS: '1' };

// The Hugging Face safetensors layout: u64 header length, JSON header (space-padded to 8 bytes),
// then each tensor's little-endian bytes at its data_offsets.
export function safetensorsBytes(tensors, metadata) {
  const header = {};
  let offset = 0;
  for (const [name, { dtype, shape, data }] of Object.entries(tensors)) {
    header[name] = { dtype, shape, data_offsets: [offset, offset + data.byteLength] };
    offset += data.byteLength;
  }
  if (metadata) header.__metadata__ = metadata;
  let json = JSON.stringify(header);
  json += ' '.repeat((8 - ((8 + Buffer.byteLength(json)) % 8)) % 8);
  const head = Buffer.from(json, 'utf8');
  const out = Buffer.alloc(8 + head.length + offset);
  out.writeBigUInt64LE(BigInt(head.length), 0);
  head.copy(out, 8);
  let at = 8 + head.length;
  for (const { data } of Object.values(tensors)) {
    Buffer.from(data.buffer, data.byteOffset, data.byteLength).copy(out, at);
    at += data.byteLength;
  }
  return out;
}

function planFile(dir, index, setup) {
  const { batch: B, context: T, batches } = setup;
  const stack = (key) => {
    const all = new Int32Array(batches.length * B * T);
    batches.forEach((b, i) => all.set(b[key], i * B * T));
    return { dtype: 'I32', shape: [batches.length, B, T], data: all };
  };
  const tensors = {};
  for (const [name, t] of Object.entries(setup.params)) tensors[name] = { dtype: 'F32', ...t };
  tensors.tokens = stack('tokens');
  tensors.targets = stack('targets');
  const c = setup.config;
  const plan = {
    config: {
      vocab_size: c.vocabSize,
      block_size: c.contextLength,
      n_layer: c.layers,
      n_head: c.heads,
      n_embd: c.width,
      bias: c.bias,
      mlp: c.mlp,
      layer_norm: c.layerNorm,
    },
    gelu: setup.gelu,
    optimizer: setup.optimizer,
  };
  const file = path.join(dir, `plan-${index}.safetensors`);
  writeFileSync(file, safetensorsBytes(tensors, { plan: JSON.stringify(plan) }));
  return file;
}

// Runs the setups in one Python process (or one process each, so each run's peak RSS is its own).
function runTorch(setups, { processPerRun }) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'attn-train-'));
  try {
    const files = setups.map((s, i) => planFile(dir, i, s));
    const groups = processPerRun ? files.map((f) => [f]) : [files];
    const results = [];
    let info = null;
    for (const group of groups) {
      const out = execFileSync(PYTHON, [SCRIPT, ...group], {
        encoding: 'utf8',
        env: ENV,
        stdio: ['ignore', 'pipe', 'inherit'],
        maxBuffer: 64 * MB,
        timeout: 1800e3,
      });
      info = JSON.parse(out.trim().split('\n').at(-1));
      if (info.unavailable) return { unavailable: info.unavailable };
      results.push(...info.runs);
    }
    return { info, results };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function torchTrainer() {
  // find_spec, not import: importing torch takes a second or two, and the run imports it anyway
  // (a torch that is found but fails to import is reported by the run as unavailable).
  try {
    execFileSync(PYTHON, ['-c', 'import importlib.util, sys; sys.exit(importlib.util.find_spec("torch") is None)'], {
      stdio: 'ignore',
    });
  } catch {
    return { skipped: `PyTorch: ${PYTHON} is missing or finds no torch module; peer skipped` };
  }
  return {
    name: 'PyTorch',
    version: '?',
    native: true,
    // Many setups at once: one Python start-up for all (quick mode) or one process per setup.
    trainMany(setups, { processPerRun = false } = {}) {
      const r = runTorch(setups, { processPerRun });
      if (r.unavailable)
        throw Object.assign(new Error(`PyTorch: ${r.unavailable}; peer skipped`), { unavailable: true });
      Object.assign(this, { version: r.info.torch, blas: r.info.blas, threads: r.info.threads });
      return r.results.map((x) => ({
        losses: x.losses,
        gradNorms: x.gradNorms,
        stepMs: x.stepMs,
        memory: [
          ['peak RSS', `${x.rssPeakMB.toFixed(0)} MB (${r.info.rssBaselineMB.toFixed(0)} MB after import torch)`],
        ],
      }));
    },
  };
}
