// The worker of bench/gpt2_generate.mjs --browser: measures (gpt2_generate_measure.mjs) and posts
// the rows back.
import { measure } from './gpt2_generate_measure.mjs';

self.onmessage = async (event) => {
  try {
    self.postMessage({ result: await measure(event.data) });
  } catch (error) {
    self.postMessage({ error: String(error?.stack ?? error) });
  }
};
