// Exports of what the page shows: a matrix as CSV, JSON, a torch.tensor literal, an SVG or a
// PNG heatmap with its labels; the whole state as a short PyTorch script that recomputes it.
//
// A matrix is (R, C) nested arrays of numbers (−Infinity marks a masked entry) or a
// {shape: [R, C], data} tensor. Labels are untrusted text: every writer escapes them for its
// format (CSV quoting and formula guard, XML escaping, Python string literals).
//
// Pure except toPNG()/drawHeatmap(), which need a canvas (browser). The PNG is drawn with the
// canvas 2D API, not by loading the SVG as an image, so it works under a strict CSP (no data:
// or blob: images needed); the numbers also travel in a PNG tEXt chunk.

// ---------------------------------------------------------------------------------------------
// Numbers

/** Shortest decimal text that reads back to the same float32 (engine numbers are float32). */
export function float32Text(value) {
  if (value === -Infinity) return '-Infinity';
  if (value === Infinity) return 'Infinity';
  if (Number.isNaN(value)) return 'NaN';
  const f = Math.fround(value);
  if (f === 0) return '0';
  for (let p = 1; p <= 9; p++) {
    const text = f.toPrecision(p);
    if (Math.fround(Number(text)) === f) return String(Number(text));
  }
  return String(f);
}

/** (R, C) nested arrays from nested arrays or a {shape: [R, C], data} tensor; checks the shape. */
export function toMatrix(matrix, argument = 'matrix') {
  if (matrix && !Array.isArray(matrix) && Array.isArray(matrix.shape) && matrix.data) {
    const [rows, cols] = matrix.shape;
    if (matrix.shape.length !== 2 || matrix.data.length !== rows * cols) {
      throw new TypeError(`${argument}: expected a 2-d tensor {shape: [R, C], data of R·C numbers}, got shape [${matrix.shape}] with ${matrix.data.length} numbers`);
    }
    return Array.from({ length: rows }, (_, r) => Array.from(matrix.data.slice(r * cols, (r + 1) * cols)));
  }
  if (!Array.isArray(matrix) || matrix.length === 0 || !Array.isArray(matrix[0])) {
    throw new TypeError(`${argument}: expected (R, C) nested arrays of numbers`);
  }
  const cols = matrix[0].length;
  matrix.forEach((row, r) => {
    if (!Array.isArray(row) || row.length !== cols) {
      throw new TypeError(`${argument}: row ${r} has ${row?.length} entries, expected ${cols} like row 0`);
    }
    row.forEach((v, c) => {
      if (typeof v !== 'number' || Number.isNaN(v)) throw new TypeError(`${argument}[${r}][${c}]: expected a number, got ${v}`);
    });
  });
  return matrix;
}

function labelsFor(labels, n, fallback) {
  return Array.from({ length: n }, (_, i) => (labels && labels[i] !== undefined ? String(labels[i]) : `${fallback}${i}`));
}

// ---------------------------------------------------------------------------------------------
// CSV, JSON, PyTorch literal

function csvField(text) {
  let s = String(text);
  // A label starting with = + - @ would run as a formula in a spreadsheet.
  if (/^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** CSV: a header row of column labels, then one row per matrix row led by its label. */
export function toCSV(matrix, { rowLabels, colLabels, corner = '' } = {}) {
  const m = toMatrix(matrix);
  const rows = labelsFor(rowLabels, m.length, 'row ');
  const cols = labelsFor(colLabels, m[0].length, 'col ');
  const lines = [[corner, ...cols].map(csvField).join(',')];
  m.forEach((row, r) => lines.push([csvField(rows[r]), ...row.map(float32Text)].join(',')));
  return lines.join('\r\n') + '\r\n';
}

/** JSON: {name, shape, rowLabels, colLabels, data}; masked (−∞) entries are written as null. */
export function toJSON(matrix, { name = 'matrix', rowLabels, colLabels } = {}) {
  const m = toMatrix(matrix);
  const data = m.map((row) => row.map((v) => (Number.isFinite(v) ? Number(float32Text(v)) : null)));
  const out = {
    name: String(name),
    shape: [m.length, m[0].length],
    rowLabels: labelsFor(rowLabels, m.length, 'row '),
    colLabels: labelsFor(colLabels, m[0].length, 'col '),
    data,
  };
  if (m.some((row) => row.some((v) => !Number.isFinite(v)))) out.note = 'null marks a masked entry (−∞ before the softmax)';
  return JSON.stringify(out, null, 2) + '\n';
}

/** Python literal of a number, always a float (an all-integer list would make an int tensor). */
export function pyFloat(value) {
  if (value === -Infinity) return 'float("-inf")';
  if (value === Infinity) return 'float("inf")';
  const text = typeof value === 'number' && Math.fround(value) === value ? float32Text(value) : String(value);
  return /[.eE]/.test(text) ? text : `${text}.0`;
}

/** Python string literal for untrusted text: JSON escapes are all valid Python escapes. */
export function pyString(text) {
  return JSON.stringify(String(text)).replace(/[\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16)}`);
}

function pyRows(m, indent) {
  const rows = m.map((row) => `${indent}    [${row.map(pyFloat).join(', ')}],`);
  return `[\n${rows.join('\n')}\n${indent}]`;
}

/** `torch.tensor([[…], …])` literal of the matrix, every number exact to float32. */
export function toTorchLiteral(matrix, { indent = '' } = {}) {
  return `torch.tensor(${pyRows(toMatrix(matrix), indent)})`;
}

// ---------------------------------------------------------------------------------------------
// Heatmap drawing: one layout, two painters (SVG text and canvas 2D).

const FONT = '12px system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif';
const TITLE_FONT = '600 13px system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif';

// Fallback colour map (viridis through 5 anchors) for callers that do not pass their own.
const VIRIDIS = [[68, 1, 84], [59, 82, 139], [33, 145, 140], [94, 201, 98], [253, 231, 37]];
function defaultColor(m) {
  const finite = m.flat().filter(Number.isFinite);
  const lo = Math.min(...finite, 0);
  const hi = Math.max(...finite, lo + 1e-9);
  return (v) => {
    if (!Number.isFinite(v)) return null;
    const t = Math.min(1, Math.max(0, (v - lo) / (hi - lo))) * (VIRIDIS.length - 1);
    const i = Math.min(VIRIDIS.length - 2, Math.floor(t));
    const f = t - i;
    const [r, g, b] = VIRIDIS[i].map((a, k) => Math.round(a + (VIRIDIS[i + 1][k] - a) * f));
    return `rgb(${r}, ${g}, ${b})`;
  };
}

function rgbOf(color) {
  const m = /^rgba?\(\s*([\d.]+)[\s,]+([\d.]+)[\s,]+([\d.]+)/i.exec(color);
  if (m) return [Number(m[1]), Number(m[2]), Number(m[3])];
  const h = /^#([0-9a-f]{6})$/i.exec(color);
  if (h) return [0, 2, 4].map((i) => parseInt(h[1].slice(i, i + 2), 16));
  return [128, 128, 128];
}

function inkFor(color) {
  const lin = (c) => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
  const [r, g, b] = rgbOf(color);
  const l = 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
  return (l + 0.05) / 0.05 >= 1.05 / (l + 0.05) ? '#000' : '#fff';
}

function cellText(v, digits) {
  if (v === -Infinity) return '\u2212\u221e';
  const t = Number(v).toFixed(digits);
  return (/^-0\.?0*$/.test(t) ? t.slice(1) : t).replace('-', '\u2212');
}

// Rough text width for layout (the canvas painter measures exactly; the SVG is laid out the same).
function textWidth(text) {
  return [...String(text)].length * 7.2;
}

/**
 * Geometry of a labelled heatmap. Cells are `cell` px squares; row labels on the left, column
 * labels on top, an optional title above. All coordinates are in CSS px (scale applies later).
 */
export function heatmapLayout(matrix, { rowLabels, colLabels, title = '', cell = 44, digits = 3, color, cellColors } = {}) {
  const m = toMatrix(matrix);
  const rows = labelsFor(rowLabels, m.length, '');
  const cols = labelsFor(colLabels, m[0].length, '');
  const pad = 8;
  const clipLabel = (s) => ([...s].length > 16 ? `${[...s].slice(0, 15).join('')}…` : s);
  const rowText = rows.map(clipLabel);
  const colText = cols.map(clipLabel);
  const left = pad + Math.ceil(Math.max(0, ...rowText.map(textWidth))) + 8;
  const titleH = title ? 22 : 0;
  const top = pad + titleH + 20;
  const cellW = Math.max(cell, Math.ceil(Math.max(...colText.map(textWidth), textWidth(cellText(-0.5, digits))) + 8));
  const width = left + cellW * m[0].length + pad;
  const height = top + cell * m.length + pad;
  const paint = color || defaultColor(m);
  const cells = [];
  // cellColors[r][c] (e.g. read from the page's cells) wins over the colour function.
  m.forEach((row, r) => row.forEach((v, c) => {
    const given = cellColors?.[r]?.[c];
    const fill = given !== undefined ? given : paint(v);
    cells.push({
      r, c, value: v, x: left + c * cellW, y: top + r * cell, w: cellW, h: cell,
      fill: fill || null, ink: fill ? inkFor(fill) : '#555', text: cellText(v, digits),
    });
  }));
  return {
    width, height, title: String(title), pad, titleH, left, top, cellW, cellH: cell,
    rows: rowText, cols: colText, fullRows: rows, fullCols: cols, cells, matrix: m,
  };
}

function xml(text) {
  return String(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;').replace(/'/g, '&#39;')
    // Characters XML 1.0 forbids even when escaped.
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '\ufffd');
}

/** A standalone SVG document of the heatmap: cells, numbers, labels, title. */
export function toSVG(matrix, options = {}) {
  const L = heatmapLayout(matrix, options);
  const out = [];
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${L.width}" height="${L.height}" viewBox="0 0 ${L.width} ${L.height}" font-family="${xml(FONT.replace(/^12px /, ''))}" font-size="12">`);
  out.push(`<rect width="${L.width}" height="${L.height}" fill="#fff"/>`);
  if (L.title) out.push(`<text x="${L.pad}" y="${L.pad + 14}" font-size="13" font-weight="600" fill="#111">${xml(L.title)}</text>`);
  L.cols.forEach((label, c) => {
    out.push(`<text x="${L.left + (c + 0.5) * L.cellW}" y="${L.top - 6}" text-anchor="middle" fill="#111" class="col-label"><title>${xml(L.fullCols[c])}</title>${xml(label)}</text>`);
  });
  L.rows.forEach((label, r) => {
    out.push(`<text x="${L.left - 8}" y="${L.top + (r + 0.5) * L.cellH + 4}" text-anchor="end" fill="#111" class="row-label"><title>${xml(L.fullRows[r])}</title>${xml(label)}</text>`);
  });
  for (const cell of L.cells) {
    const fill = cell.fill || '#e6e6e6';
    out.push(`<g class="cell" data-row="${cell.r}" data-col="${cell.c}" data-value="${float32Text(cell.value)}">`
      + `<rect x="${cell.x}" y="${cell.y}" width="${cell.w}" height="${cell.h}" fill="${xml(fill)}" stroke="#fff"/>`
      + `<text x="${cell.x + cell.w / 2}" y="${cell.y + cell.h / 2 + 4}" text-anchor="middle" fill="${cell.ink}">${xml(cell.text)}</text></g>`);
  }
  out.push('</svg>');
  return out.join('\n') + '\n';
}

/** Paints the layout onto a 2D context at `scale` device px per CSS px. */
export function drawHeatmap(ctx, L, scale = 2) {
  ctx.save();
  ctx.scale(scale, scale);
  ctx.fillStyle = '#fff';
  ctx.fillRect(0, 0, L.width, L.height);
  ctx.textBaseline = 'alphabetic';
  if (L.title) {
    ctx.font = TITLE_FONT;
    ctx.fillStyle = '#111';
    ctx.textAlign = 'left';
    ctx.fillText(L.title, L.pad, L.pad + 14);
  }
  ctx.font = FONT;
  ctx.fillStyle = '#111';
  ctx.textAlign = 'center';
  L.cols.forEach((label, c) => ctx.fillText(label, L.left + (c + 0.5) * L.cellW, L.top - 6));
  ctx.textAlign = 'right';
  L.rows.forEach((label, r) => ctx.fillText(label, L.left - 8, L.top + (r + 0.5) * L.cellH + 4));
  ctx.textAlign = 'center';
  for (const cell of L.cells) {
    ctx.fillStyle = cell.fill || '#e6e6e6';
    ctx.fillRect(cell.x, cell.y, cell.w, cell.h);
    ctx.strokeStyle = '#fff';
    ctx.lineWidth = 1;
    ctx.strokeRect(cell.x + 0.5, cell.y + 0.5, cell.w - 1, cell.h - 1);
    ctx.fillStyle = cell.ink;
    ctx.fillText(cell.text, cell.x + cell.w / 2, cell.y + cell.h / 2 + 4);
  }
  ctx.restore();
}

// ---------------------------------------------------------------------------------------------
// PNG: canvas → bytes, plus a tEXt chunk carrying the CSV so the numbers survive in the file.

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

export function crc32(bytes) {
  let c = 0xffffffff;
  for (let i = 0; i < bytes.length; i++) c = CRC_TABLE[(c ^ bytes[i]) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** Inserts a tEXt chunk (Latin-1 keyword and text; other characters become '?') before IEND. */
export function pngWithText(png, keyword, text) {
  const bytes = png instanceof Uint8Array ? png : new Uint8Array(png);
  const latin1 = (s) => Uint8Array.from([...s], (ch) => (ch.codePointAt(0) < 256 ? ch.codePointAt(0) : 63));
  const key = latin1(keyword.slice(0, 79));
  const body = latin1(text);
  const data = new Uint8Array(key.length + 1 + body.length);
  data.set(key, 0);
  data.set(body, key.length + 1);
  const chunk = new Uint8Array(12 + data.length);
  const view = new DataView(chunk.buffer);
  view.setUint32(0, data.length);
  chunk.set([0x74, 0x45, 0x58, 0x74], 4);  // "tEXt"
  chunk.set(data, 8);
  view.setUint32(8 + data.length, crc32(chunk.subarray(4, 8 + data.length)));
  const iend = bytes.length - 12;  // IEND is always the last 12 bytes
  if (String.fromCharCode(...bytes.subarray(iend + 4, iend + 8)) !== 'IEND') throw new Error('png: no IEND chunk at the end');
  const out = new Uint8Array(bytes.length + chunk.length);
  out.set(bytes.subarray(0, iend), 0);
  out.set(chunk, iend);
  out.set(bytes.subarray(iend), iend + chunk.length);
  return out;
}

/** Reads the chunks of a PNG: {width, height, text: {keyword: text}}; throws on a bad file. */
export function readPNG(png) {
  const bytes = png instanceof Uint8Array ? png : new Uint8Array(png);
  const sig = [137, 80, 78, 71, 13, 10, 26, 10];
  if (!sig.every((b, i) => bytes[i] === b)) throw new Error('png: bad signature');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out = { width: 0, height: 0, text: {} };
  for (let p = 8; p < bytes.length;) {
    const len = view.getUint32(p);
    const type = String.fromCharCode(...bytes.subarray(p + 4, p + 8));
    const data = bytes.subarray(p + 8, p + 8 + len);
    if (crc32(bytes.subarray(p + 4, p + 8 + len)) !== view.getUint32(p + 8 + len)) throw new Error(`png: bad CRC in ${type}`);
    if (type === 'IHDR') { out.width = view.getUint32(p + 8); out.height = view.getUint32(p + 12); }
    if (type === 'tEXt') {
      const zero = data.indexOf(0);
      out.text[String.fromCharCode(...data.subarray(0, zero))] = Array.from(data.subarray(zero + 1), (b) => String.fromCharCode(b)).join('');
    }
    p += 12 + len;
  }
  return out;
}

/** PNG bytes of the heatmap at `scale`× (2 by default), with the CSV in a tEXt chunk. Browser only. */
export async function toPNG(matrix, options = {}) {
  const scale = options.scale ?? 2;
  const L = heatmapLayout(matrix, options);
  const canvas = document.createElement('canvas');
  canvas.width = Math.ceil(L.width * scale);
  canvas.height = Math.ceil(L.height * scale);
  drawHeatmap(canvas.getContext('2d'), L, scale);
  const blob = await new Promise((resolve, reject) => canvas.toBlob((b) => (b ? resolve(b) : reject(new Error('png: the canvas produced no image'))), 'image/png'));
  const bytes = new Uint8Array(await blob.arrayBuffer());
  return pngWithText(bytes, 'attention-explorer:csv', toCSV(matrix, options));
}

// ---------------------------------------------------------------------------------------------
// The whole state as a PyTorch script in the seeds' style (seed 003's embed(), W_query, …).

function pyMatrix(m) {
  return toTorchLiteral(m);
}

/**
 * A runnable script that recomputes the attention of every context in `state` (and the causal
 * averaging of the focused context for the averaging example) and prints each weights matrix
 * and output. `dropoutKeep` maps a context name to its (H, T, T) keep mask (nested 0/1), needed
 * only when dropout is active: the engine's seeded draw is not PyTorch's RNG.
 */
export function toPyTorchScript(state, { dropoutKeep = {} } = {}) {
  const o = state.options;
  const dropoutActive = o.training && o.dropout > 0;
  const L = [];
  L.push('# Recomputes the attention shown by attention-explorer for this state.');
  L.push('# Run: python3 attention.py   (needs PyTorch)');
  L.push('import math');
  L.push('');
  L.push('import torch');
  L.push('');
  L.push('torch.set_printoptions(precision=4, sci_mode=False)');
  L.push('');
  L.push('');
  L.push('def embed(tokens):');
  L.push('    vocab = {');
  for (const [word, vec] of Object.entries(state.vocab)) {
    L.push(`        ${pyString(word)}: torch.tensor([${vec.map(pyFloat).join(', ')}]),`);
  }
  L.push('    }');
  L.push('    return torch.stack([vocab[token] for token in tokens])');
  L.push('');
  L.push('');
  if (o.projections) {
    L.push(`W_query = ${pyMatrix(state.weights.wq)}`);
    L.push(`W_key = ${pyMatrix(state.weights.wk)}`);
    L.push(`W_value = ${pyMatrix(state.weights.wv)}`);
  } else {
    L.push('# Projections are off: queries, keys and values are the embeddings themselves.');
  }
  L.push(`heads = ${o.heads}`);
  const scaleLine = o.scale === true ? 'scale = 1 / math.sqrt(head_size)  # 1/√(head size)'
    : o.scale === false ? 'scale = 1.0  # scaling is off' : `scale = ${pyFloat(o.scale)}`;
  L.push(`temperature = ${pyFloat(o.temperature)}`);
  L.push(`causal = ${o.causal ? 'True' : 'False'}`);
  if (dropoutActive) L.push(`dropout = ${pyFloat(o.dropout)}  # training mode: the page's keep masks are given below`);
  L.push('');
  L.push('');
  L.push(`def self_attention(x${dropoutActive ? ', keep' : ''}):`);
  if (o.projections) {
    L.push('    queries = x @ W_query  # (T, dk)');
    L.push('    keys = x @ W_key  # (T, dk)');
    L.push('    values = x @ W_value  # (T, dv)');
  } else {
    L.push('    queries, keys, values = x, x, x  # (T, D) each');
  }
  L.push('    T = x.shape[0]');
  L.push('    head_size = keys.shape[-1] // heads');
  L.push('    value_size = values.shape[-1] // heads');
  L.push(`    ${scaleLine}`);
  L.push('    all_weights, outputs = [], []');
  L.push('    for h in range(heads):');
  L.push('        q = queries[:, h * head_size:(h + 1) * head_size]');
  L.push('        k = keys[:, h * head_size:(h + 1) * head_size]');
  L.push('        v = values[:, h * value_size:(h + 1) * value_size]');
  L.push('        attn_scores = q @ k.T');
  L.push('        attn_scores = attn_scores * scale / temperature');
  L.push('        if causal:');
  L.push('            future = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)');
  L.push('            attn_scores = attn_scores.masked_fill(future, float("-inf"))');
  L.push('        attn_weights = torch.softmax(attn_scores, dim=-1)');
  if (dropoutActive) L.push('        attn_weights = attn_weights * keep[h] / (1 - dropout)');
  L.push('        all_weights.append(attn_weights)');
  L.push('        outputs.append(attn_weights @ v)');
  L.push('    return torch.stack(all_weights), torch.cat(outputs, dim=-1)');
  L.push('');
  L.push('');
  const names = Object.keys(state.contexts);
  names.forEach((name, i) => {
    const id = `context_${i}`;
    L.push(`# ${pyString(name)}`);
    L.push(`${id}_tokens = [${state.contexts[name].map(pyString).join(', ')}]`);
    L.push(`${id}_embeddings = embed(${id}_tokens)`);
    let keepArg = '';
    if (dropoutActive) {
      const keep = dropoutKeep[name];
      if (!keep) throw new TypeError(`dropoutKeep["${name}"]: expected the (H, T, T) keep mask of the context while dropout is active`);
      L.push(`${id}_keep = torch.tensor([${keep.map((m) => pyRows(m, '')).join(', ')}])`);
      keepArg = `, ${id}_keep`;
    }
    L.push(`${id}_weights, ${id}_output = self_attention(${id}_embeddings${keepArg})`);
    L.push(`print(${pyString(`${name} weights`)}, list(${id}_weights.shape))`);
    L.push(`print(${id}_weights)`);
    L.push(`print(${pyString(`${name} output`)}, list(${id}_output.shape))`);
    L.push(`print(${id}_output)`);
    L.push('');
  });
  if (state.example === 'averaging') {
    const tokens = state.contexts[state.focus] || state.contexts[names[0]];
    L.push('# Causal averaging ("bag of words") of the focused context, three ways that agree.');
    L.push(`x = embed([${tokens.map(pyString).join(', ')}])`);
    L.push('T = x.shape[0]');
    L.push('loop = torch.zeros_like(x)');
    L.push('for t in range(T):');
    L.push('    loop[t] = x[: t + 1].mean(0)');
    L.push('tril = torch.tril(torch.ones(T, T))');
    L.push('matmul = (tril / tril.sum(1, keepdim=True)) @ x');
    L.push('zeros = torch.zeros(T, T).masked_fill(tril == 0, float("-inf"))');
    L.push('softmax = torch.softmax(zeros, dim=-1) @ x');
    L.push('print("averaging", list(softmax.shape))');
    L.push('print(softmax)');
    L.push('print("three ways agree:", torch.allclose(loop, matmul) and torch.allclose(loop, softmax))');
  }
  return L.join('\n') + '\n';
}

/** Triggers a download of `data` (string or bytes) as `filename`. Browser only. */
export function download(filename, data, type = 'application/octet-stream') {
  const blob = data instanceof Blob ? data : new Blob([data], { type });
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  a.rel = 'noopener';
  a.style.display = 'none';
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/** Safe file name stem from untrusted text. */
export function fileStem(text) {
  return String(text).normalize('NFKD').replace(/[^\w.-]+/g, '-').replace(/^[-.]+|[-.]+$/g, '').slice(0, 60) || 'matrix';
}
