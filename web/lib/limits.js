// The bounds every way into the explorer enforces: the edit boxes, the URL hash, the element's
// attributes and inline JSON. One table: they keep a hostile link cheap to render and the page
// readable (a heatmap of 16 × 16 numbers still fits a screen).
export const LIMITS = Object.freeze({
  hashChars: 65536, // longest URL hash decoded
  jsonChars: 65536, // longest inline JSON read by the element
  captionChars: 300, // the element's caption attribute
  contexts: 8, // named contexts (sentences)
  tokens: 16, // tokens per context
  words: 32, // vocabulary size
  width: 16, // D, dk, dv and the plain layer's columns
  wordChars: 32, // length of a word or context name
  absValue: 1000, // |any vector or weight entry|
  heads: 16,
  step: 64, // stepper position
  cell: 16, // selected row / column index bound
});

// The Learn section's bounds (web/lib/learn/session.js, the section's controls and the URL):
// small enough that a model trains in seconds in a browser tab; the engine checks its own,
// larger, limits on top.
export const LEARN_LIMITS = Object.freeze({
  layers: 4,
  heads: 8,
  width: 128,
  context: 64,
  batch: 64,
  steps: 20000, // a run's step count (also what a shared link retrains to)
  textChars: 20000, // pasted text for the character-level model
  sentences: 200, // sentences of the bank corpus
  sentenceWords: 12, // words per sentence
  lrMin: 1e-5,
  lrMax: 1,
  checkpointBytes: 64 * 1024 * 1024, // largest checkpoint file imported
});
