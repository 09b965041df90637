// A small TeX → MathML typesetter with KaTeX's render() signature, used instead of KaTeX in the
// element bundle (dist/attention-explorer.js), where KaTeX's 260 KB and its fonts (which do not
// load inside a shadow root) would break the size budget. Browsers render MathML natively.
//
// It covers the TeX the explorer's formula view writes: \frac \sqrt \operatorname \text
// \left( \right) \begin{bmatrix}…\end{bmatrix} ^ _ \top \cdot \times \infty \, \! \quad, numbers,
// letters and operators. Anything else is shown as its source text, never parsed as markup:
// nodes are built with createElementNS and text goes in as text nodes.

const NS = 'http://www.w3.org/1998/Math/MathML';
const SYMBOLS = {
  top: ['mi', '\u22a4'], cdot: ['mo', '\u00b7'], times: ['mo', '\u00d7'], infty: ['mi', '\u221e'],
  sum: ['mo', '\u2211'], alpha: ['mi', '\u03b1'], beta: ['mi', '\u03b2'], sqrt: null, ldots: ['mo', '\u2026'],
  cdots: ['mo', '\u22ef'], to: ['mo', '\u2192'], in: ['mo', '\u2208'], le: ['mo', '\u2264'], ge: ['mo', '\u2265'],
  approx: ['mo', '\u2248'], neq: ['mo', '\u2260'], pm: ['mo', '\u00b1'], prime: ['mo', '\u2032'],
};
const SPACES = { ',': '0.1667em', ':': '0.2222em', ';': '0.2778em', quad: '1em', qquad: '2em', ' ': '0.25em' };

function tokenize(tex) {
  const tokens = [];
  const re = /\\([a-zA-Z]+)|\\([^a-zA-Z])|(\d+(?:\.\d+)?|\.\d+)|([a-zA-Z])|(\s+)|([\s\S])/g;
  let m;
  while ((m = re.exec(tex))) {
    if (m[1]) tokens.push({ type: 'cmd', value: m[1] });
    else if (m[2]) tokens.push({ type: 'cmd', value: m[2] });
    else if (m[3]) tokens.push({ type: 'num', value: m[3] });
    else if (m[4]) tokens.push({ type: 'letter', value: m[4] });
    else if (m[5]) tokens.push({ type: 'space', value: ' ' });
    else tokens.push({ type: 'char', value: m[6] });
  }
  return tokens;
}

class Parser {
  constructor(doc, tex) {
    this.doc = doc;
    this.tex = tex;
    this.tokens = tokenize(tex);
    this.i = 0;
  }

  el(tag, children = [], attrs = {}) {
    const node = this.doc.createElementNS(NS, tag);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
    for (const c of children) node.append(typeof c === 'string' ? this.doc.createTextNode(c) : c);
    return node;
  }

  peek() { return this.tokens[this.i]; }
  next() { return this.tokens[this.i++]; }
  // Outside \text, spaces carry no meaning.
  peekItem() { this.skipSpace(); return this.peek(); }
  nextItem() { this.skipSpace(); return this.next(); }

  // Raw text of a {…} group (for \text and \operatorname), braces balanced.
  rawGroup() {
    const t = this.peekItem();
    if (!t || t.value !== '{' || t.type !== 'char') return t ? this.next().value : '';
    this.next();
    let depth = 1;
    let text = '';
    while (this.i < this.tokens.length) {
      const tok = this.next();
      if (tok.type === 'char' && tok.value === '{') depth++;
      if (tok.type === 'char' && tok.value === '}' && --depth === 0) break;
      text += tok.type === 'cmd' ? (tok.value === ' ' ? ' ' : `\\${tok.value}`) : tok.value;
    }
    return text;
  }

  skipSpace() {
    while (this.peek()?.type === 'space') this.i++;
  }

  // One argument: a {group} or a single token.
  argument() {
    const t = this.peekItem();
    if (t && t.type === 'char' && t.value === '{') {
      this.next();
      return this.el('mrow', this.sequence('}'));
    }
    return this.atom() || this.el('mrow');
  }

  // Items until the closing char (consumed) or, for tables, until & / \\ / \end (not consumed).
  sequence(close, inTable = false) {
    const items = [];
    while (this.i < this.tokens.length) {
      const t = this.peekItem();
      if (!t) break;
      if (close && t.type === 'char' && t.value === close) { this.next(); break; }
      if (inTable && ((t.type === 'char' && t.value === '&') || (t.type === 'cmd' && (t.value === '\\' || t.value === 'end')))) break;
      const atom = this.atom();
      if (atom) items.push(this.scripts(atom));
    }
    return items;
  }

  scripts(base) {
    let sub = null;
    let sup = null;
    for (;;) {
      const t = this.peekItem();
      if (!t || t.type !== 'char' || (t.value !== '_' && t.value !== '^')) break;
      this.next();
      if (t.value === '_') sub = this.argument(); else sup = this.argument();
    }
    if (sub && sup) return this.el('msubsup', [base, sub, sup]);
    if (sub) return this.el('msub', [base, sub]);
    if (sup) return this.el('msup', [base, sup]);
    return base;
  }

  atom() {
    const t = this.nextItem();
    if (!t) return null;
    if (t.type === 'num') return this.el('mn', [t.value]);
    if (t.type === 'letter') return this.el('mi', [t.value]);
    if (t.type === 'char') {
      if (t.value === '{') return this.el('mrow', this.sequence('}'));
      if (t.value === '}') return null;
      if (t.value === '-') return this.el('mo', ['\u2212']);
      return this.el('mo', [t.value]);
    }
    const name = t.value;
    if (name === 'frac') { const a = this.argument(); const b = this.argument(); return this.el('mfrac', [a, b]); }
    if (name === 'sqrt') return this.el('msqrt', [this.argument()]);
    if (name === 'operatorname' || name === 'mathrm') return this.el('mi', [this.rawGroup()], { mathvariant: 'normal' });
    if (name === 'text') return this.el('mtext', [this.rawGroup().replace(/\\ /g, ' ')]);
    if (name === 'left' || name === 'right' || name === 'big' || name === 'Big') {
      const d = this.nextItem();
      const text = !d ? '' : d.type === 'cmd' ? ({ '{': '{', '}': '}', '|': '\u2016', langle: '\u27e8', rangle: '\u27e9' }[d.value] ?? '') : d.value;
      return text === '.' || text === '' ? null : this.el('mo', [text], { stretchy: 'true' });
    }
    if (name === '!') return null;
    if (name in SPACES) return this.el('mspace', [], { width: SPACES[name] });
    if (name === 'begin') {
      const env = this.rawGroup();
      if (env === 'bmatrix' || env === 'pmatrix' || env === 'matrix') return this.matrix(env);
      return this.el('mtext', [`\\begin{${env}}`]);
    }
    if (name === 'end') { this.rawGroup(); return null; }
    if (SYMBOLS[name]) { const [tag, text] = SYMBOLS[name]; return this.el(tag, [text]); }
    return this.el('mtext', [`\\${name}`]);
  }

  matrix(env) {
    const rows = [];
    let cells = [];
    for (;;) {
      const items = this.sequence(undefined, true);
      cells.push(this.el('mtd', [this.el('mrow', items)]));
      const t = this.nextItem();
      if (!t) break;
      if (t.type === 'char' && t.value === '&') continue;
      rows.push(this.el('mtr', cells));
      cells = [];
      if (t.type === 'cmd' && t.value === 'end') { this.rawGroup(); break; }
    }
    if (cells.length) rows.push(this.el('mtr', cells));
    const table = this.el('mtable', rows);
    if (env === 'matrix') return table;
    const [open, close] = env === 'bmatrix' ? ['[', ']'] : ['(', ')'];
    return this.el('mrow', [this.el('mo', [open], { stretchy: 'true' }), table, this.el('mo', [close], { stretchy: 'true' })]);
  }
}

/** Renders `tex` into `element` as a <math> element; KaTeX-compatible signature. */
export function render(tex, element, options = {}) {
  const doc = element.ownerDocument;
  const parser = new Parser(doc, String(tex));
  let content;
  try {
    content = parser.el('mrow', parser.sequence(null));
  } catch {
    content = parser.el('mtext', [String(tex)]);
  }
  const math = parser.el('math', [content], options.displayMode ? { display: 'block' } : {});
  element.replaceChildren(math);
}

export function renderToString() {
  throw new Error('renderToString is not available in the element bundle');
}

export default { render, renderToString };
