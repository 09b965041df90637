// The real-model figures' thread: a Web Worker that every real-model figure of a page shares
// (tools/worker-channels.js), each on its own channel with its own requests (tools/model-host.js,
// which runs the very same requests on the page where no worker can start), over one engine and
// one copy of each model they open. Messages: tools/worker-backend.js. Typed arrays in a result
// move rather than copy.
import { loadEngine } from './engine/engine.js';
import { modelRequests, sharedModels } from './tools/model-host.js';
import { answerChannels } from './tools/worker-backend.js';

// The threaded engine where the page is cross-origin isolated, else the single-thread one.
const engine = loadEngine({ threads: 'auto' });
const models = sharedModels();

const transfers = (value, out = []) => {
  if (ArrayBuffer.isView(value) && value.byteLength === value.buffer.byteLength) out.push(value.buffer);
  else if (value && typeof value === 'object' && !ArrayBuffer.isView(value))
    for (const v of Object.values(value)) transfers(v, out);
  return out;
};

answerChannels(
  self,
  () => modelRequests(engine, { models }),
  (result) => [...new Set(transfers(result))],
);
