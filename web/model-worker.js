// The real-model section's thread: a Web Worker that owns one model and its tokenizer and answers
// the page's requests (tools/model-host.js, which runs the very same requests on the page where
// no worker can start). Each message is {id, op, args}; each reply {id, result} or
// {id, error: {name, message, argument}}. Typed arrays in a result move rather than copy.
import { loadEngine } from './engine/engine.js';
import { modelRequests } from './tools/model-host.js';

// The threaded engine where the page is cross-origin isolated, else the single-thread one.
const requests = modelRequests(loadEngine({ threads: 'auto' }));

const transfers = (value, out = []) => {
  if (ArrayBuffer.isView(value) && value.byteLength === value.buffer.byteLength) out.push(value.buffer);
  else if (value && typeof value === 'object' && !ArrayBuffer.isView(value))
    for (const v of Object.values(value)) transfers(v, out);
  return out;
};

self.onmessage = async (event) => {
  const { id, op, args } = event.data || {};
  try {
    const result = await requests.handle(op, args || []);
    self.postMessage({ id, result }, [...new Set(transfers(result))]);
  } catch (err) {
    self.postMessage({
      id,
      error: { name: err?.name || 'Error', message: String(err?.message ?? err), argument: err?.argument },
    });
  }
};
