// What "The formula" says beside the numbers of one query row. Pure.
import { q } from './words.js';

/**
 * @param {{tokens: string[], heads: number, head: number}} f  lib/focus.js focusView
 * @param {number} i  the row
 * @param {string} focus  the sentence's name
 */
export function formulaLegend(f, i, focus) {
  const head = f.heads > 1 ? `, head ${f.head} of ${f.heads}` : '';
  return `Row ${i} is ${q(f.tokens[i])} in ${q(focus)}${head}; keys and values 0…${f.tokens.length - 1} are ${f.tokens.map((w, n) => `${n} ${q(w)}`).join(', ')}.`;
}
