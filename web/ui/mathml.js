// Formulas as MathML built directly, for the page and the element alike: a formula is a small
// tree of nodes made by the functions below; math() renders it as a <math> element whose
// <annotation> holds the same formula as TeX (so a reader can copy it). Browsers lay out MathML
// natively: no TeX parser, no fonts, no style sheet, nothing to load, and nothing here parses
// text as markup — every node is made with createElementNS and text goes in as text nodes.
//
//   math(doc, row(mi('Q'), sup(mi('K'), mo('⊤', '\\top'))), { display: true })
const NS = 'http://www.w3.org/1998/Math/MathML';

const node = (tag, tex, children = [], attrs = {}, text = null) => ({ tag, tex, children, attrs, text });

/** An identifier (italic when one letter); `tex` defaults to the text itself. */
export const mi = (text, tex = text) => node('mi', tex, [], {}, text);
/** A number. */
export const mn = (text) => node('mn', String(text), [], {}, String(text));
/** An operator, e.g. mo('·', '\\cdot'). */
export const mo = (text, tex = text) => node('mo', tex, [], {}, text);
/** Upright text. */
export const mtext = (text) => node('mtext', `\\text{${String(text).replace(/[\\{}$&#^_%~]/g, '')}}`, [], {}, text);
/** An operator name such as softmax. */
export const opname = (name) => node('mi', `\\operatorname{${name}}`, [], { mathvariant: 'normal' }, name);
/** A horizontal space of `em` ems. */
export const space = (em, tex = '\\,') => node('mspace', tex, [], { width: `${em}em` });
/** A row of nodes side by side. */
export const row = (...children) => node('mrow', children.map((c) => c.tex).join(' '), children);
export const frac = (num, den) => node('mfrac', `\\frac{${num.tex}}{${den.tex}}`, [num, den]);
export const sqrt = (inner) => node('msqrt', `\\sqrt{${inner.tex}}`, [inner]);
export const sup = (base, exp) => node('msup', `{${base.tex}}^{${exp.tex}}`, [base, exp]);
export const sub = (base, index) => node('msub', `{${base.tex}}_{${index.tex}}`, [base, index]);
/** inner between stretchy brackets: fenced('(', ')', x). */
export const fenced = (open, close, inner) =>
  node('mrow', `\\left${open} ${inner.tex} \\right${close}`, [
    node('mo', open, [], { stretchy: 'true' }, open),
    inner,
    node('mo', close, [], { stretchy: 'true' }, close),
  ]);
/** A row vector [a b c] of already formatted numbers (a bracketed one-row table). */
export function vector(texts) {
  const cells = texts.map((t) => node('mtd', t, [mn(t)]));
  const table = node('mtable', texts.join(' & '), [node('mtr', '', cells)], { columnspacing: '0.6em' });
  return node('mrow', `\\begin{bmatrix}${texts.join(' & ')}\\end{bmatrix}`, [
    node('mo', '[', [], {}, '['),
    table,
    node('mo', ']', [], {}, ']'),
  ]);
}

function build(doc, n) {
  const el = doc.createElementNS(NS, n.tag);
  for (const [k, v] of Object.entries(n.attrs)) el.setAttribute(k, v);
  if (n.text !== null) el.append(doc.createTextNode(n.text));
  for (const c of n.children) el.append(build(doc, c));
  return el;
}

/** The <math> element for a formula, with its TeX in an annotation. */
export function math(doc, formula, { display = true } = {}) {
  const el = doc.createElementNS(NS, 'math');
  if (display) el.setAttribute('display', 'block');
  const semantics = doc.createElementNS(NS, 'semantics');
  const annotation = doc.createElementNS(NS, 'annotation');
  annotation.setAttribute('encoding', 'application/x-tex');
  annotation.append(doc.createTextNode(formula.tex));
  semantics.append(build(doc, formula.tag === 'mrow' ? formula : row(formula)), annotation);
  el.append(semantics);
  return el;
}

/** The TeX of a formula (what the annotation holds). */
export const tex = (formula) => formula.tex;
