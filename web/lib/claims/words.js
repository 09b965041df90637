// The small pieces every computed sentence is made of: a quoted token, a list joined with
// "and", a row of weights written out, where a row looks most. Pure.
import { fmt } from '../format.js';

/** “word” */
export const q = (word) => `“${word}”`;

/** A weight as the sentences print it: 2 decimals (the pictures' labels print the same). */
export const w2 = (v) => fmt(v, 2);

/** "a", "a and b", "a, b and c" */
export function joinAnd(items) {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

/** "stream 0.10, bank 0.04, mud 0.86": a row of weights over its tokens. */
export const weightsList = (tokens, row) => tokens.map((t, j) => `${t} ${w2(row[j])}`).join(', ');

/** The index of a row's largest value (the first, on a tie). */
export const argmax = (row) => row.reduce((best, v, j) => (v > row[best] ? j : best), 0);

/** "head 0" */
export const headName = (h) => `head ${h}`;

/** Upper-cases a sentence's first letter (a quoted word stays as it is written). */
export const capital = (s) => s.replace(/^\p{Ll}/u, (c) => c.toUpperCase());

/** "head 0", "heads 1 and 2", "heads 1, 2 and 3" */
export const headsName = (hs) => (hs.length === 1 ? headName(hs[0]) : `heads ${joinAnd(hs.map(String))}`);
