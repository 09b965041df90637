// The Learn section's training thread: a Web Worker that owns one training session
// (lib/learn/session.js) and answers the page's requests, so the page stays responsive while the
// model trains. The page talks to it through tools/trainer.js, which runs the very same requests
// on the page itself (in time slices) where a worker cannot start: a strict CSP, file://, or a
// browser without module workers. Messages: tools/worker-backend.js.
import { loadEngine } from './engine/engine.js';
import { sessionRequests } from './tools/trainer.js';
import { answerRequests } from './tools/worker-backend.js';

// The threaded engine where the page is cross-origin isolated, else the single-thread one.
const requests = sessionRequests(loadEngine({ threads: 'auto' }));

// A checkpoint's bytes move rather than copy (only when they own their whole buffer).
answerRequests(self, requests, (result) =>
  result instanceof Uint8Array && result.byteLength === result.buffer.byteLength ? [result.buffer] : [],
);
