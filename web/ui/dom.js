// A tiny element builder. Text is always added as text nodes (token names are untrusted; nothing
// here ever parses HTML). Works with any Document, so views can render inside a shadow root.
// The transpose sign in text (“Q·Kᵀ”) is drawn as a superscript T (lib/text.js transposeParts).
import { TRANSPOSE, transposeParts } from '../lib/text.js';

/**
 * h(doc, 'button', {class: 'x', type: 'button', onclick: fn, dataset: {a: 1}}, 'text', child)
 * Keys starting with "on" add listeners; `class`, `text`, `dataset`, `style` are handled;
 * booleans set/remove attributes; everything else goes through setAttribute. A card (class
 * ae-card) is a part a host page can style (::part(card)) unless it names another.
 */
export function h(doc, tag, attrs = {}, ...children) {
  const el = doc.createElement(tag);
  if (/(^|\s)ae-card(\s|$)/.test(attrs?.class ?? '') && !attrs.part) el.setAttribute('part', 'card');
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (k === 'class') el.className = v;
    else if (k === 'text') el.textContent = v;
    else if (k === 'dataset') Object.assign(el.dataset, v);
    else if (k === 'value' || k === 'checked' || k === 'selected' || k === 'disabled') el[k] = v;
    else if (v === true) el.setAttribute(k, '');
    else el.setAttribute(k, String(v));
  }
  append(doc, el, children);
  return el;
}

function append(doc, el, children) {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(doc, el, c);
    else if (typeof c === 'string' && c.includes(TRANSPOSE) && !PLAIN_TEXT.has(el.localName))
      el.append(...textNodes(doc, c));
    else if (typeof c === 'string' || typeof c === 'number') el.append(doc.createTextNode(String(c)));
    else el.append(c);
  }
}

// Elements that hold text only: their transpose sign stays the character.
const PLAIN_TEXT = new Set(['option', 'textarea', 'title', 'style', 'script']);

/**
 * `text` as nodes, its transpose signs as superscript T's (<sup class="ae-t">); the text it was is
 * in the sup's data-text, so reading it back (plainText) gives the sign again.
 */
export function textNodes(doc, text) {
  return transposeParts(text).map((p) =>
    p.sup ? h(doc, 'sup', { class: 'ae-t', 'data-text': TRANSPOSE }, p.text) : doc.createTextNode(p.text),
  );
}

/** A node's text as written (a superscript T read back as the transpose sign). */
export function plainText(node) {
  if (node.nodeType === 3) return node.nodeValue;
  if (node.dataset?.text !== undefined) return node.dataset.text;
  return [...node.childNodes].map(plainText).join('');
}

/** The focused element as seen from `node`'s tree (inside a shadow root too). */
export function activeIn(node) {
  return node.getRootNode?.().activeElement ?? node.ownerDocument?.activeElement ?? null;
}

/**
 * Text that points to another section ("see “Why ÷√dₖ”", "two sections down"), shown only where
 * that section is shown too (a figure in a post shows a few; the page all): the shell hides it
 * otherwise (shell/render.js). withoutSection: the words to say instead.
 */
export const withSection = (doc, id, ...children) => h(doc, 'span', { 'data-with': id }, ...children);
export const withoutSection = (doc, id, ...children) => h(doc, 'span', { 'data-without': id }, ...children);

let counter = 0;
/** A unique id for label/aria wiring (unique per page, also across shadow roots). */
export function uid(prefix = 'ae') {
  counter += 1;
  return `${prefix}-${counter}`;
}

/** Sets the options of a <select> to [{value, label}] keeping the current value when possible. */
export function setOptions(doc, select, options, value) {
  const key = options.map((o) => `${o.value}:${o.label}`).join('|');
  if (select.dataset.key !== key) {
    select.replaceChildren(...options.map((o) => h(doc, 'option', { value: String(o.value) }, o.label)));
    select.dataset.key = key;
  }
  select.value = String(value);
}

/**
 * Fills `table` with a caption, one header row (`head`, column headers) and `rows`, each
 * [row header, ...cells] as text.
 */
export function fillTable(doc, table, { caption, head, rows }) {
  table.replaceChildren(
    h(doc, 'caption', {}, caption),
    h(
      doc,
      'thead',
      {},
      h(
        doc,
        'tr',
        {},
        head.map((c) => h(doc, 'th', { scope: 'col' }, c)),
      ),
    ),
    h(
      doc,
      'tbody',
      {},
      rows.map(([first, ...cells]) =>
        h(
          doc,
          'tr',
          {},
          h(doc, 'th', { scope: 'row' }, first),
          cells.map((c) => h(doc, 'td', {}, c)),
        ),
      ),
    ),
  );
}

/**
 * An empty table of `className` with a caption and one header row (`head`, column headers):
 * {table, caption, body} to fill in.
 */
export function headedTable(doc, className, head) {
  const caption = h(doc, 'caption', {});
  const body = h(doc, 'tbody');
  const row = h(
    doc,
    'tr',
    {},
    head.map((c) => h(doc, 'th', { scope: 'col' }, c)),
  );
  const table = h(doc, 'table', { class: className }, caption, h(doc, 'thead', {}, row), body);
  return { table, caption, body };
}
