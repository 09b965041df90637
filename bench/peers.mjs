// The peers the kernels are compared with, all in this Node process, all float32, one thread.
// Each peer is {name, prepare(inputs) → run} where run() computes
//   O (H, T, hs) = softmax(Q Kᵀ / √hs [+ causal mask]) V
// on the given Q, K, V (H, T, hs) and returns O as a Float32Array, so the timed region is
// the same for everyone: inputs from JavaScript memory in, output back in JavaScript memory.
import { createRequire } from 'node:module';
import path from 'node:path';

import { attentionModel, causalMask, mhaModel } from './onnx_model.mjs';

const require = createRequire(import.meta.url);

// ---------------------------------------------------------------------------------------
// Ours: the kernels of src/kernels/ in the bench WASM module (bench/wasm_kernels.cpp).

export function oursPeer(M, kernel) {
  const name = kernel === 'tiled' ? 'ours (tiled)' : kernel === '3pass' ? 'ours (3-pass)' : 'ours (scalar ref)';
  return {
    name,
    prepare({ H, T, hs, causal, q, k, v }) {
      const n = H * T * hs;
      const bytes = n * 4;
      const pq = M._bk_malloc(bytes),
        pk = M._bk_malloc(bytes),
        pv = M._bk_malloc(bytes),
        po = M._bk_malloc(bytes);
      const ps = kernel === '3pass' ? M._bk_malloc(T * T * 4) : 0;
      if (!pq || !pk || !pv || !po || (kernel === '3pass' && !ps)) throw new Error(`${name}: out of WASM memory`);
      const run = () => {
        // Copy in and out inside the timed region, like the peers' APIs do.
        M.HEAPF32.set(q, pq >> 2);
        M.HEAPF32.set(k, pk >> 2);
        M.HEAPF32.set(v, pv >> 2);
        if (kernel === 'tiled') M._bk_attention_tiled(po, pq, pk, pv, H, T, hs, causal ? 1 : 0);
        else if (kernel === '3pass') M._bk_attention_3pass(po, ps, pq, pk, pv, H, T, hs, causal ? 1 : 0);
        else M._bk_attention_ref(po, pq, pk, pv, H, T, hs, causal ? 1 : 0);
        return M.HEAPF32.slice(po >> 2, (po >> 2) + n);
      };
      run.dispose = () => [pq, pk, pv, po, ps].forEach((p) => p && M._bk_free(p));
      return run;
    },
  };
}

// ---------------------------------------------------------------------------------------
// onnxruntime-web, WASM backend, numThreads = 1: the MatMul-Softmax-MatMul graph of
// bench/onnx_model.mjs (what torch.onnx exports for scaled_dot_product_attention).

export async function ortPeer() {
  const ort = await import('onnxruntime-web');
  ort.env.wasm.numThreads = 1;
  ort.env.wasm.proxy = false;
  return {
    name: 'onnxruntime-web',
    version: ort.env.versions?.web ?? '?',
    async prepare({ H, T, hs, causal, q, k, v }) {
      const session = await ort.InferenceSession.create(attentionModel({ H, T, hs, causal }), {
        executionProviders: ['wasm'],
        graphOptimizationLevel: 'all',
      });
      const dims = [1, H, T, hs];
      const mask = causal ? new ort.Tensor('float32', causalMask(T), [T, T]) : null;
      const run = async () => {
        const feeds = {
          Q: new ort.Tensor('float32', q, dims),
          K: new ort.Tensor('float32', k, dims),
          V: new ort.Tensor('float32', v, dims),
        };
        if (mask) feeds.mask = mask;
        const { O } = await session.run(feeds);
        return O.data;
      };
      run.dispose = () => session.release();
      return run;
    },
  };
}

// onnxruntime-web's fused com.microsoft MultiHeadAttention op (same backend, 1 thread). It
// wants (1, T, H·hs) inputs: the layout change of Q, K, V is done once outside the timed
// region (in its favour); the output is changed back inside it (T·H·hs copies, negligible).
export async function ortMhaPeer() {
  const ort = await import('onnxruntime-web');
  ort.env.wasm.numThreads = 1;
  return {
    name: 'ort-web MHA op',
    version: ort.env.versions?.web ?? '?',
    async prepare({ H, T, hs, causal, q, k, v }) {
      const session = await ort.InferenceSession.create(mhaModel({ H, T, hs, causal }), {
        executionProviders: ['wasm'],
        graphOptimizationLevel: 'all',
      });
      const toTokens = (x) => {
        // (H, T, hs) → (T, H·hs)
        const y = new Float32Array(x.length);
        for (let h = 0; h < H; h++)
          for (let t = 0; t < T; t++) y.set(x.subarray((h * T + t) * hs, (h * T + t + 1) * hs), (t * H + h) * hs);
        return y;
      };
      const dims = [1, T, H * hs];
      const qt = toTokens(q),
        kt = toTokens(k),
        vt = toTokens(v);
      const run = async () => {
        const { O } = await session.run({
          Q: new ort.Tensor('float32', qt, dims),
          K: new ort.Tensor('float32', kt, dims),
          V: new ort.Tensor('float32', vt, dims),
        });
        const o = O.data,
          out = new Float32Array(o.length);
        for (let h = 0; h < H; h++)
          for (let t = 0; t < T; t++) out.set(o.subarray((t * H + h) * hs, (t * H + h + 1) * hs), (h * T + t) * hs);
        return out;
      };
      run.dispose = () => session.release();
      return run;
    },
  };
}

// ---------------------------------------------------------------------------------------
// TensorFlow.js, wasm backend (XNNPACK), single-threaded SIMD build.

export async function tfjsPeer() {
  const tf = await import('@tensorflow/tfjs-core');
  const wasm = await import('@tensorflow/tfjs-backend-wasm');
  const dir = path.dirname(require.resolve('@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm-simd.wasm'));
  wasm.setWasmPaths(dir + path.sep);
  tf.env().set('WASM_HAS_MULTITHREAD_SUPPORT', false); // the non-threaded SIMD binary
  if (!(await tf.setBackend('wasm'))) throw new Error('tfjs: the wasm backend did not initialise');
  await tf.ready();
  const threads = wasm.getThreadsCount();
  if (threads !== 1) throw new Error(`tfjs: expected 1 thread, got ${threads}`);
  return {
    name: 'tfjs-wasm',
    version: tf.version_core,
    prepare({ H, T, hs, causal, q, k, v }) {
      const maskTensor = causal
        ? tf.tensor2d(
            causalMask(T).map((x) => (x === -Infinity ? -1e30 : 0)),
            [T, T],
          )
        : null;
      const scale = tf.scalar(1 / Math.sqrt(hs));
      const run = () => {
        const out = tf.tidy(() => {
          const Q = tf.tensor3d(q, [H, T, hs]),
            K = tf.tensor3d(k, [H, T, hs]),
            V = tf.tensor3d(v, [H, T, hs]);
          let s = tf.mul(tf.matMul(Q, K, false, true), scale);
          if (maskTensor) s = tf.add(s, maskTensor);
          return tf.matMul(tf.softmax(s), V);
        });
        const data = out.dataSync();
        out.dispose();
        return data;
      };
      run.dispose = () => {
        scale.dispose();
        if (maskTensor) maskTensor.dispose();
      };
      return run;
    },
  };
}

// ---------------------------------------------------------------------------------------
// Plain JavaScript: Float32Array, K transposed per head so the inner score loop is unit-stride.

export function plainJsPeer() {
  return {
    name: 'plain JS',
    prepare({ H, T, hs, causal, q, k, v }) {
      const run = () => {
        const out = new Float32Array(H * T * hs);
        const kt = new Float32Array(hs * T);
        const s = new Float32Array(T);
        const alpha = 1 / Math.sqrt(hs);
        for (let h = 0; h < H; h++) {
          const base = h * T * hs;
          for (let j = 0; j < T; j++) for (let c = 0; c < hs; c++) kt[c * T + j] = k[base + j * hs + c];
          for (let i = 0; i < T; i++) {
            const live = causal ? i + 1 : T;
            s.fill(0, 0, live);
            for (let c = 0; c < hs; c++) {
              // scores: s[j] += q[i, c] · kᵀ[c, j]
              const qc = q[base + i * hs + c];
              const row = c * T;
              for (let j = 0; j < live; j++) s[j] += qc * kt[row + j];
            }
            let max = -Infinity;
            for (let j = 0; j < live; j++) {
              s[j] *= alpha;
              if (s[j] > max) max = s[j];
            }
            let sum = 0;
            for (let j = 0; j < live; j++) {
              s[j] = Math.exp(s[j] - max);
              sum += s[j];
            }
            const o = base + i * hs;
            for (let j = 0; j < live; j++) {
              const p = s[j] / sum;
              const vr = base + j * hs;
              for (let c = 0; c < hs; c++) out[o + c] += p * v[vr + c];
            }
          }
        }
        return out;
      };
      return run;
    },
  };
}
