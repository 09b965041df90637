// The real-model section's thread: a Web Worker that owns one model and its tokenizer and answers
// the page's requests (tools/model-host.js, which runs the very same requests on the page where
// no worker can start). Messages: tools/worker-backend.js. Typed arrays in a result move rather
// than copy.
import { loadEngine } from './engine/engine.js';
import { modelRequests } from './tools/model-host.js';
import { answerRequests } from './tools/worker-backend.js';

// The threaded engine where the page is cross-origin isolated, else the single-thread one.
const requests = modelRequests(loadEngine({ threads: 'auto' }));

const transfers = (value, out = []) => {
  if (ArrayBuffer.isView(value) && value.byteLength === value.buffer.byteLength) out.push(value.buffer);
  else if (value && typeof value === 'object' && !ArrayBuffer.isView(value))
    for (const v of Object.values(value)) transfers(v, out);
  return out;
};

answerRequests(self, requests, (result) => [...new Set(transfers(result))]);
