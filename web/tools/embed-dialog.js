// The "Embed" button: a dialog with the snippet that reproduces the current state in a blog
// post, as an <attention-explorer> element or as an <iframe> of embed.html, plus the share link.
//
//   attachEmbedButton(toolbar, { store, defaults, elementSrc, embedUrl });
//
// The snippet functions are pure (string in, string out) and exported for tests.
import { defaultViewFor } from '../lib/attributes.js';
import { encodeState } from '../lib/share.js';
import { escapeXml as attr } from '../lib/text.js';
import { h } from '../ui/dom.js';
import { copyText } from './download.js';
import { shareLink } from './hash-sync.js';

const ATTR_OPTIONS = ['causal', 'scale', 'temperature', 'heads', 'projections'];

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

/**
 * Splits the differences between `state` and `defaults` into element attributes and the rest
 * (for an inline JSON child). Attributes are applied on top of the JSON by the element.
 * @returns {{attributes: Array<[string, string]>, json: object|null}}
 */
export function elementConfig(state, defaults) {
  const attributes = [];
  const json = {};
  const contextNames = Object.keys(state.contexts);
  // example: as an attribute unless it would move the focus away from the state's focus.
  const exampleIsContext = contextNames.includes(state.example);
  const exampleAttrOk = !exampleIsContext || state.focus === state.example;
  if (state.example !== defaults.example) {
    if (exampleAttrOk) attributes.push(['example', state.example]);
    else json.example = state.example;
  }
  const focusFromExample = exampleAttrOk && exampleIsContext && state.example !== defaults.example;
  if (state.focus !== defaults.focus && !focusFromExample) json.focus = state.focus;
  // Without a view attribute the element shows its example's compact figure (defaultViewFor).
  const exampleAttr = attributes.find(([k]) => k === 'example')?.[1];
  const impliedView = defaultViewFor(exampleAttr ?? json.example ?? defaults.example);
  if (!same(state.view, impliedView)) attributes.push(['view', state.view.join(',')]);
  if (!same(state.vocab, defaults.vocab)) json.vocab = state.vocab;
  if (!same(state.weights, defaults.weights)) json.weights = state.weights;
  if (!same(state.contexts, defaults.contexts)) {
    // Token lists of the default vocabulary's words read well as an attribute; anything with
    // spaces, commas, colons or semicolons in a word goes to the JSON.
    const simple =
      !json.vocab &&
      Object.entries(state.contexts).every(
        ([name, tokens]) => !/[\s,;:]/.test(name) && tokens.every((t) => !/[\s,;:]/.test(t)),
      ) &&
      same(Object.keys(state.contexts), Object.keys(defaults.contexts));
    if (simple) {
      const changed = Object.entries(state.contexts).filter(([name, tokens]) => !same(tokens, defaults.contexts[name]));
      attributes.push(['tokens', changed.map(([name, tokens]) => `${name}: ${tokens.join(' ')}`).join('; ')]);
    } else {
      json.contexts = state.contexts;
    }
  }
  const options = {};
  for (const [key, value] of Object.entries(state.options)) {
    if (same(value, defaults.options[key])) continue;
    if (ATTR_OPTIONS.includes(key)) attributes.push([key, String(value)]);
    else options[key] = value;
  }
  if (Object.keys(options).length) json.options = options;
  if (state.step !== defaults.step) attributes.push(['step', String(state.step)]);
  if (!same(state.selected, defaults.selected)) json.selected = state.selected;
  if (state.theme !== defaults.theme) attributes.push(['theme', state.theme]);
  return { attributes, json: Object.keys(json).length ? json : null };
}

/** JSON safe inside <script type="application/json">: no "</script", "<!--" or U+2028/9 can appear. */
export function scriptSafeJSON(value) {
  return JSON.stringify(value, null, 1)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/** The <script> + <attention-explorer> snippet for `state`. */
export function elementSnippet(state, defaults, { src = 'attention-explorer.js', controls = 'minimal' } = {}) {
  const { attributes, json } = elementConfig(state, defaults);
  const all = [...attributes, ['controls', controls]];
  const attrs = all.map(([k, v]) => ` ${k}="${attr(v)}"`).join('');
  const lines = [`<script type="module" src="${attr(src)}"></script>`];
  if (json) {
    lines.push(`<attention-explorer${attrs}>`);
    lines.push(`<script type="application/json">${scriptSafeJSON(json)}</script>`);
    lines.push('</attention-explorer>');
  } else {
    lines.push(`<attention-explorer${attrs}></attention-explorer>`);
  }
  return lines.join('\n') + '\n';
}

/**
 * The <iframe> snippet (embed.html#state) and the script that sizes it (embed-host.js, a file
 * beside embed.html: no inline script, so it works under the strict CSP).
 */
export function iframeSnippet(
  state,
  defaults,
  { embedUrl = 'embed.html', hostScript, height = 640, title = 'Self-attention explorer' } = {},
) {
  const src = `${embedUrl}#${encodeState(state, defaults)}`;
  const script = hostScript || embedUrl.replace(/[^/]*$/, 'embed-host.js');
  return (
    [
      `<iframe src="${attr(src)}" title="${attr(title)}" style="width: 100%; border: 0;" height="${Number(height) || 640}" loading="lazy"></iframe>`,
      `<script src="${attr(script)}" defer></script>`,
    ].join('\n') + '\n'
  );
}

/**
 * Adds an "Embed" button to `container`; it opens a dialog with the element snippet, the iframe
 * snippet and the share link of the current state, each with a Copy button.
 * @param {{store, defaults, elementSrc?: string, embedUrl?: string, pageUrl?: string}} options
 */
export function attachEmbedButton(container, { store, defaults, elementSrc, embedUrl, pageUrl }) {
  const doc = container.ownerDocument;
  const here = doc.defaultView.location;
  const base = `${here.origin}${here.pathname.replace(/[^/]*$/, '')}`;
  const src = elementSrc || `${base}attention-explorer.js`;
  const frameUrl = embedUrl || `${base}embed.html`;
  const button = h(
    doc,
    'button',
    { type: 'button', class: 'ae-btn ae-embed-btn', title: 'Get the HTML that shows this exact state in a blog post' },
    'Embed',
  );
  const dialog = h(doc, 'dialog', { class: 'ae-embed-dialog', 'aria-label': 'Embed this explorer' });
  const fields = {};
  const section = (key, heading, help) => {
    const area = h(doc, 'textarea', {
      readonly: true,
      rows: key === 'link' ? 2 : 7,
      spellcheck: 'false',
      'aria-label': heading,
      dataset: { snippet: key },
    });
    const status = h(doc, 'span', { role: 'status' });
    const copy = h(
      doc,
      'button',
      {
        type: 'button',
        class: 'ae-btn',
        onclick: async () => {
          area.select();
          status.textContent = (await copyText(doc, area.value)) ? ' Copied' : ' Select the text and copy it';
        },
      },
      'Copy',
    );
    fields[key] = area;
    dialog.append(h(doc, 'h3', {}, heading), h(doc, 'p', { class: 'ae-help' }, help), area, copy, status);
  };
  dialog.append(h(doc, 'h2', {}, 'Embed this explorer'));
  section(
    'element',
    'Custom element',
    'Paste into your post. It loads one self-contained file (the engine included) and shows exactly this state.',
  );
  section(
    'iframe',
    'Or an iframe',
    'For hosts that do not allow module scripts in posts. The frame reports its height and embed-host.js (beside embed.html; host it with your page) sizes it to fit; without that script the frame scrolls.',
  );
  section('link', 'Link', 'Opens the full explorer in this state.');
  dialog.append(h(doc, 'button', { type: 'button', class: 'ae-btn', onclick: () => dialog.close() }, 'Close'));
  const fill = () => {
    const state = store.get();
    fields.element.value = elementSnippet(state, defaults, { src });
    fields.iframe.value = iframeSnippet(state, defaults, { embedUrl: frameUrl });
    fields.link.value = shareLink(state, defaults, pageUrl);
  };
  button.addEventListener('click', () => {
    fill();
    if (typeof dialog.showModal === 'function') dialog.showModal();
    else dialog.setAttribute('open', '');
    fields.element.focus();
    fields.element.select();
  });
  container.append(button, dialog);
  return {
    button,
    dialog,
    refresh: fill,
    destroy() {
      button.remove();
      dialog.remove();
    },
  };
}
