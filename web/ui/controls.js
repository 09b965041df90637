// Labelled form controls shared by the knobs and the element's minimal bar: each returns its
// element, its input and sync(value) to show a state value without firing a change.
import { h, uid, setOptions } from './dom.js';
import { fmt } from '../lib/format.js';

/** A checkbox with its label (and an optional help line). onChange(checked). */
export function checkbox(doc, { label, help, onChange, className = 'ae-ctl' }) {
  const id = uid('opt');
  const input = h(doc, 'input', { type: 'checkbox', id, onchange: (e) => onChange(e.target.checked) });
  const el = h(
    doc,
    'div',
    { class: className },
    input,
    h(doc, 'label', { for: id }, label),
    help ? h(doc, 'p', { class: 'ae-help' }, help) : null,
  );
  return {
    el,
    input,
    sync(value) {
      input.checked = value;
    },
  };
}

/** A range slider with its label and an <output> showing the value to `digits` decimals. onInput(number). */
export function slider(doc, { label, min, max, step, digits = 2, onInput, className = 'ae-ctl ae-ctl-range' }) {
  const id = uid('opt');
  const out = h(doc, 'output', { for: id });
  const input = h(doc, 'input', { type: 'range', id, min, max, step, oninput: (e) => onInput(Number(e.target.value)) });
  const el = h(doc, 'div', { class: className }, h(doc, 'label', { for: id }, label), input, out);
  return {
    el,
    input,
    sync(value) {
      input.value = String(value);
      out.textContent = fmt(value, digits);
    },
  };
}

/** A <select> with its label. sync(options [{value, label}], value). onChange(value string). */
export function select(doc, { label, onChange, className = 'ae-ctl' }) {
  const id = uid('opt');
  const input = h(doc, 'select', { id, onchange: (e) => onChange(e.target.value) });
  const el = h(doc, 'div', { class: className }, h(doc, 'label', { for: id }, label), input);
  return {
    el,
    input,
    sync(options, value) {
      setOptions(doc, input, options, value);
    },
  };
}

/**
 * Radio buttons in a fieldset with its legend: one choice of `choices` ([[value, label]]).
 * onChange(value string); sync(value) checks one without firing a change.
 */
export function radios(doc, { legend, choices, value, onChange, className = 'ae-radio' }) {
  const name = uid('choice');
  const inputs = choices.map(([v]) =>
    h(doc, 'input', {
      type: 'radio',
      name,
      id: `${name}-${v}`,
      value: v,
      checked: v === value,
      onchange: () => onChange(v),
    }),
  );
  const el = h(
    doc,
    'fieldset',
    { class: className },
    h(doc, 'legend', {}, legend),
    choices.map(([v, label], n) => h(doc, 'span', {}, inputs[n], h(doc, 'label', { for: `${name}-${v}` }, label))),
  );
  return {
    el,
    inputs,
    sync(next) {
      for (const input of inputs) input.checked = input.value === next;
    },
  };
}

/**
 * One of several boxes at a time where the explorer is narrow (explorer.css's container query:
 * a phone, a narrow column), all of them where it is wide: a radio group above them, shown only
 * where narrow, chooses which. `boxes`: {value: element}, one per choice.
 * @returns {{el: HTMLFieldSetElement, show(value), offer(values: string[])}}
 *   show: choose `value`; offer: only these choices are offered (the group hidden for fewer than
 *   two), and the one shown stays if offered, else the first of them
 */
export function narrowChooser(doc, { legend, choices, value, boxes, className = '' }) {
  const choose = (v) => Object.entries(boxes).forEach(([k, el]) => el.classList.toggle('ae-narrow-chosen', k === v));
  for (const el of Object.values(boxes)) el.classList.add('ae-narrow-one');
  const group = radios(doc, {
    legend,
    choices,
    value,
    onChange: choose,
    className: `ae-radio ae-narrow-pick ${className}`,
  });
  const show = (v) => {
    group.sync(v);
    choose(v);
  };
  show(value);
  return {
    el: group.el,
    show,
    offer(values) {
      group.el.hidden = values.length < 2;
      for (const input of group.inputs) input.parentElement.hidden = !values.includes(input.value);
      const chosen = group.inputs.find((input) => input.checked)?.value;
      show(values.includes(chosen) ? chosen : values[0]);
    },
  };
}
