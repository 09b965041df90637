// The whole engine on window, for tests/e2e/gpt2.test.mjs (served from the repository root).
import { loadEngine } from '/web/engine/engine.js';

window.enginePromise = loadEngine();
