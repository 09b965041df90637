// The browser's side of bench/gpt2_generate.mjs --browser, run in a module Web Worker (the
// threaded engine waits for its threads, which only a worker may do): what the Node run measures.
//
// One worker per thread count: onnxruntime-web reads env.wasm.numThreads once, when its first
// session starts its WASM module, and ignores later changes, so a second thread count in the
// same worker would run on the first one's threads (as the runs before commit 67b906a did:
// their "2 threads" row of onnxruntime-web ran on one).
//
// Warm-up and rounds, the same for both engines: one untimed generation of `steps` tokens (V8
// compiles a large WASM module's hot functions again, optimized, while it runs: onnxruntime-web's
// first tokens were up to half again slower), then ROUNDS timed generations, each from the
// prompt, and the fastest round (a slow round is someone else's load).
import { greedyDecoder } from './onnx_greedy.mjs';

const ROUNDS = 3;
const fastest = (xs) => Math.min(...xs);
export async function measure({
  checkpoint,
  graph,
  ort: ortUrl,
  engineUrl,
  prompt,
  steps,
  threadsList,
  weightsList,
  shape,
  ortOff,
}) {
  const { V, L, H, C } = shape;
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const rows = [],
    greedy = {},
    notes = [];
  const { loadEngine } = await import(engineUrl);
  const engine = await loadEngine({ threads: 'auto' });
  const blob = checkpoint instanceof Blob ? checkpoint : await (await fetch(checkpoint)).blob();
  for (const weights of weightsList) {
    engine.threads = 1;
    const t0 = performance.now();
    // 'f32-inference': float32 opened with inferenceOnly (kept in panels, as the page opens its models)
    const inferenceOnly = weights === 'f32-inference';
    const model = await engine.openModel(blob, { heads: H, weights: inferenceOnly ? 'f32' : weights, inferenceOnly });
    model.trace(prompt);
    const firstPicture = performance.now() - t0;
    for (const threads of threadsList) {
      engine.threads = threads;
      const quiet = { qkv: false, scores: false, weights: false, residual: false };
      model.trace(prompt, quiet);
      const forward = [];
      for (let i = 0; i < 5; i++) {
        const t = performance.now();
        model.trace(prompt, quiet);
        forward.push(performance.now() - t);
      }
      // a generation of `steps` tokens after the prompt's: ms per token, and the tokens
      const generate = () => {
        const session = model.session(prompt, { temperature: 0 });
        const tokens = [session.step().token];
        const t = performance.now();
        for (let i = 0; i < steps; i++) tokens.push(session.step().token);
        const ms = (performance.now() - t) / steps;
        session.dispose();
        return { ms, tokens };
      };
      greedy[weights] = generate().tokens; // the warm-up
      const perToken = fastest(Array.from({ length: ROUNDS }, () => generate().ms));
      rows.push({
        who: 'ours',
        weights,
        threads,
        firstPicture: threads === 1 ? firstPicture : null,
        forward: median(forward),
        perToken,
      });
      console.log(`ours ${weights} ${threads}: ${perToken.toFixed(1)} ms/token`);
    }
    model.dispose();
  }
  if (!ortOff) {
    const ort = await import(ortUrl);
    ort.env.wasm.proxy = false;
    ort.env.wasm.wasmPaths = ortUrl.slice(0, ortUrl.lastIndexOf('/') + 1);
    const bytes = graph instanceof Uint8Array ? graph : new Uint8Array(await (await fetch(graph)).arrayBuffer());
    for (const threads of threadsList) {
      try {
        ort.env.wasm.numThreads = threads;
        const session = await ort.InferenceSession.create(bytes, {
          executionProviders: ['wasm'],
          graphOptimizationLevel: 'all',
        });
        // the same generation as ours: the prompt one token per run, a first step, `steps` timed
        const generate = async () => {
          const step = greedyDecoder(ort, session, { L, H, C, V });
          let next;
          for (const token of prompt) next = await step(token);
          const tokens = [next];
          tokens.push((next = await step(next)));
          const t = performance.now();
          for (let i = 0; i < steps; i++) tokens.push((next = await step(next)));
          return { ms: (performance.now() - t) / steps, tokens };
        };
        greedy.ort = (await generate()).tokens; // the warm-up
        const times = [];
        for (let r = 0; r < ROUNDS; r++) times.push((await generate()).ms);
        const perToken = fastest(times);
        if (ort.env.wasm.numThreads !== threads)
          notes.push(`onnxruntime-web ran on ${ort.env.wasm.numThreads} thread(s), not ${threads}`);
        rows.push({ who: `onnxruntime-web ${ort.env.versions?.web ?? ''}`.trim(), weights: 'f32', threads, perToken });
        console.log(`ort ${threads}: ${perToken.toFixed(1)} ms/token`);
        await session.release();
      } catch (error) {
        notes.push(`onnxruntime-web ${threads} thread(s): ${String(error?.message ?? error).split('\n')[0]}`);
      }
    }
  }
  return { rows, greedy, notes };
}
