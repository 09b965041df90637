// Whether a tokenizer keeps common English words whole: the share of a word list that encodes as
// one token when written as it appears inside a sentence (" word", with GPT-2's leading space).
// Two lists: the words of the page's example sentences (the real-model section's defaults, and the
// sentence issue 32 quotes), and the most frequent words of the training split's Brown text
// (runs of letters, an apostrophe and letters allowed: "don't"; counted without case, each written
// in its most frequent form: "the", "I", "John"). Pure.

// The real-model section's default sentences (web/lib/real/gpt-state.js) and issue 32's example.
export const PAGE_SENTENCES = Object.freeze([
  'She sat on the bank of the river and watched the water go by.',
  'He sat on the river bank.',
  'She took the money to the bank.',
  'The cat chased the mouse because it was hungry.',
]);

const WORD = /[A-Za-z]+(?:'[a-z]+)?/g;

/**
 * The distinct words of `texts` counted without case, most frequent first (ties: alphabetical),
 * each in its most frequent written form (ties: the form first in code-unit order).
 */
export function wordsByFrequency(texts) {
  const counts = new Map(); // lower case → {n, forms: Map(form → n)}
  for (const text of texts) {
    for (const m of text.matchAll(WORD)) {
      const key = m[0].toLowerCase();
      let c = counts.get(key);
      if (!c) counts.set(key, (c = { n: 0, forms: new Map() }));
      c.n++;
      c.forms.set(m[0], (c.forms.get(m[0]) ?? 0) + 1);
    }
  }
  const form = (forms) => [...forms].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0][0];
  return [...counts].sort((a, b) => b[1].n - a[1].n || (a[0] < b[0] ? -1 : 1)).map(([, c]) => form(c.forms));
}

/** {words, single, share, split: [{word, pieces}]} for " word" of each word in `words`. */
export function singleTokenShare(tokenizer, words) {
  const split = [];
  for (const w of words) {
    const ids = tokenizer.encode(' ' + w);
    if (ids.length !== 1) split.push({ word: w, pieces: ids.map((id) => tokenizer.decode([id])) });
  }
  const single = words.length - split.length;
  return { words: words.length, single, share: single / words.length, split };
}

/** The report's measure: the page's words and the Brown top 100 / 500 / 1,000. */
export function commonWordCoverage(tokenizer, brownTrainingTexts) {
  // The page's words in their mid-sentence form (lower case: none is a name).
  const page = [...new Set(PAGE_SENTENCES.flatMap((s) => s.toLowerCase().match(WORD)))];
  const top = wordsByFrequency(brownTrainingTexts);
  const out = { page: singleTokenShare(tokenizer, page) };
  for (const n of [100, 500, 1000]) {
    const r = singleTokenShare(tokenizer, top.slice(0, n));
    out[`brownTop${n}`] = { ...r, split: r.split.slice(0, 40) };
  }
  return out;
}
