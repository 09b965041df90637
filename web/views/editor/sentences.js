// The editor's sentences: each context's tokens in order, each movable earlier or later or
// removable, and a word of the vocabulary to add at the end. Keyboard focus stays near the
// button pressed when the list is redrawn.
import { h, uid, setOptions, activeIn } from '../../ui/dom.js';
import { addToken, removeToken, moveToken } from '../../lib/state.js';

/**
 * @param {Element} parent
 * @param {object} app
 * @returns {{update(state)}}
 */
export function render(parent, app) {
  const { doc } = app;
  const box = h(doc, 'div', { class: 'ae-two' });
  parent.append(h(doc, 'h3', {}, 'Sentences'), box);
  const cards = {};

  function card(name) {
    const list = h(doc, 'ol', { class: 'ae-tokens' });
    const selId = uid('add');
    const sel = h(doc, 'select', { id: selId });
    box.append(
      h(
        doc,
        'div',
        { class: 'ae-card' },
        h(doc, 'h4', {}, name),
        list,
        h(
          doc,
          'div',
          { class: 'ae-form' },
          h(doc, 'div', { class: 'ae-ctl' }, h(doc, 'label', { for: selId }, 'Add '), sel),
          h(
            doc,
            'button',
            { type: 'button', class: 'ae-btn', onclick: () => app.edit((s) => addToken(s, name, sel.value)) },
            `Add to ${name}`,
          ),
        ),
      ),
    );
    return { list, sel, key: '' };
  }

  // One token: its name and its three buttons (data-act: which button, to keep the focus on it).
  function token(name, tokens, t, i) {
    const act = (symbol, act, label, disabled, transition) =>
      h(
        doc,
        'button',
        {
          type: 'button',
          class: 'ae-btn ae-small',
          'aria-label': label,
          disabled,
          dataset: { act: `${act}${i}` },
          onclick: () => app.edit(transition),
        },
        symbol,
      );
    return h(
      doc,
      'li',
      { class: 'ae-token' },
      h(doc, 'span', { class: 'ae-token-name' }, t),
      act('←', 'l', `Move “${t}” (token ${i + 1} of ${name}) earlier`, i === 0, (s) => moveToken(s, name, i, -1)),
      act('→', 'r', `Move “${t}” (token ${i + 1} of ${name}) later`, i === tokens.length - 1, (s) =>
        moveToken(s, name, i, 1),
      ),
      act('×', 'x', `Remove “${t}” (token ${i + 1}) from ${name}`, tokens.length === 1, (s) => removeToken(s, name, i)),
    );
  }

  return {
    update(state) {
      const words = Object.keys(state.vocab);
      for (const [name, tokens] of Object.entries(state.contexts)) {
        const c = (cards[name] ||= card(name));
        setOptions(
          doc,
          c.sel,
          words.map((w) => ({ value: w, label: w })),
          words.includes(c.sel.value) ? c.sel.value : words[0],
        );
        const key = tokens.join('\u0000');
        if (c.key === key) continue;
        c.key = key;
        const active = activeIn(c.list);
        const focused = active && c.list.contains(active) ? active.dataset.act : null;
        c.list.replaceChildren(...tokens.map((t, i) => token(name, tokens, t, i)));
        // Keep keyboard focus near the button that was pressed.
        if (focused)
          (
            c.list.querySelector(`[data-act="${focused}"]:not([disabled])`) ||
            c.list.querySelector('button:not([disabled])')
          )?.focus();
      }
    },
  };
}
