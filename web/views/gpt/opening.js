// What the real model's "what a head does" part opens on: a named head doing a nameable thing
// (the clearest previous-token head by the page's head scores) and, said plainly, whether the
// model has an induction head — with where else to see one (Learn's repeat task, which trains one
// in seconds; GPT-2 small from Hugging Face, opened as the picker's preset opens it), whether or
// not this model has one. The sentences are lib/real/interpret.js's (openingClaims), from the
// measured scores.
import { h } from '../../ui/dom.js';

const TEXT = {
  title: 'What a head does, not only where it looks',
  measuring: 'Measuring what each head does…',
  show: (name) => `Show ${name}`,
  showTitle: (name) => `Choose ${name} in the pictures above: its weights, enlarged`,
  learn: (hasInduction) => `${hasInduction ? 'Watch one form' : 'Train one'} in Learn (the repeat task)`,
  gpt2: (p) => `Open ${p.label}`,
  gpt2Title: (p) =>
    `Downloads ${p.label} (${p.parameters} parameters) from Hugging Face and keeps it in this browser, or opens it from there`,
};

/**
 * @param {Element} parent
 * @param {{doc, onShow(layer, head), onLearn?(), gpt2: {label, parameters}, onGpt2()}} ctx  onShow:
 *   chooses the head named in the pictures; onLearn: absent when the page has no Learn section;
 *   onGpt2: opens GPT-2 (lib/hub PRESETS' first) as the picker's preset does
 * @returns {{update({claims})}}  claims: openingClaims's, or null while measuring
 */
export function render(parent, { doc, onShow, onLearn, gpt2, onGpt2 }) {
  // The sentence naming the head; the button choosing it in the pictures leads the links below.
  const headText = h(doc, 'span', {}, TEXT.measuring);
  let named = null;
  const show = h(
    doc,
    'button',
    {
      type: 'button',
      class: 'ae-link ae-gpt-opening-show',
      hidden: true,
      onclick: () => named && onShow(named.layer, named.head),
    },
    '',
  );
  const head = h(doc, 'p', { class: 'ae-claim ae-gpt-opening-head', 'aria-live': 'polite' }, headText);
  const induction = h(doc, 'p', { class: 'ae-prose ae-gpt-opening-induction' });
  const learn = onLearn
    ? h(doc, 'button', { type: 'button', class: 'ae-link ae-gpt-opening-learn', onclick: onLearn }, TEXT.learn(false))
    : null;
  const picker = h(
    doc,
    'button',
    { type: 'button', class: 'ae-link ae-gpt-opening-picker', title: TEXT.gpt2Title(gpt2), onclick: onGpt2 },
    TEXT.gpt2(gpt2),
  );
  // The head named shown, and where else to see an induction head, after the induction sentence
  // (on its line where there is room: the page's height budget).
  const inductionText = h(doc, 'span', {});
  const where = h(doc, 'span', { class: 'ae-gpt-opening-where', hidden: true }, ' ', show, ' ', learn, ' ', picker);
  // (Hidden only while measuring: the links follow the sentence they complete.)
  induction.append(inductionText, where);
  parent.append(h(doc, 'h3', { class: 'ae-prose' }, TEXT.title), head, induction);
  return {
    update({ claims }) {
      if (!claims) return;
      headText.textContent = claims.head;
      named = claims.previous;
      show.textContent = TEXT.show(named.name);
      show.title = TEXT.showTitle(named.name);
      show.hidden = false;
      inductionText.textContent = claims.induction;
      where.hidden = false;
      if (learn) learn.textContent = TEXT.learn(claims.hasInduction);
    },
  };
}
