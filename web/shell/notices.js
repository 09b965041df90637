// What the explorer tells the reader went wrong, and where. Its notice (role=alert, at the top)
// lists the problems found in the state's source (a link, the element's attributes), what the
// engine could not compute and the views that failed. An edit that could not be applied is said
// where it was made: in the section the reader last touched (its own dismissable notice under the
// heading), or in the explorer's notice when there is none.
import { h } from '../ui/dom.js';

/**
 * The explorer notice's lines: problems, engine errors, failed views, then the refused edit.
 * @param {{problems: string[], engine: string[], views: string[], edit: string|null}} messages
 */
export function noticeLines({ problems, engine, views, edit }) {
  const lines = [...problems, ...engine.map((m) => `The engine could not compute this: ${m}`), ...views];
  if (edit) lines.push(edit);
  return lines;
}

/**
 * @param {Document} doc
 * @param {HTMLElement} container  the explorer (its sections are section[data-section])
 * @param {HTMLElement} notice     the explorer's notice box
 * @returns {{notify(message), showProblems(problems, intro), setEngineErrors(list), setViewErrors(list),
 *            clearEdits(), destroy()}}
 */
export function createNotices(doc, container, notice) {
  const messages = { problems: [], engine: [], views: [], edit: null };
  const dismiss = (onclick) => h(doc, 'button', { type: 'button', class: 'ae-btn', onclick }, 'Dismiss');

  function show() {
    const lines = noticeLines(messages);
    notice.hidden = lines.length === 0;
    notice.replaceChildren(...lines.map((l) => h(doc, 'p', {}, l)));
    if (messages.edit)
      notice.append(
        dismiss(() => {
          messages.edit = null;
          show();
        }),
      );
  }

  // The section the reader last touched (pointer, key or focus), where a refused edit is said.
  let lastSection = null;
  const touched = (e) => {
    lastSection = e.target.closest?.('section[data-section]') ?? lastSection;
  };
  const TOUCHES = ['pointerdown', 'keydown', 'focusin'];
  for (const type of TOUCHES) container.addEventListener(type, touched, true);

  function sectionNotice(section) {
    let box = section.querySelector(':scope > .ae-section-notice');
    if (!box) {
      box = h(doc, 'div', { class: 'ae-notice ae-section-notice', role: 'alert', hidden: true });
      const heading = section.querySelector(':scope > h2');
      if (heading) heading.after(box);
      else section.prepend(box);
    }
    return box;
  }

  return {
    /** An edit that could not be applied: said in the section last touched, else at the top. */
    notify(message) {
      if (lastSection?.isConnected && !lastSection.hidden) {
        const box = sectionNotice(lastSection);
        box.replaceChildren(
          h(doc, 'p', {}, message),
          dismiss(() => (box.hidden = true)),
        );
        box.hidden = false;
        return;
      }
      messages.edit = message;
      show();
    },
    /** Problems found in where the state came from: `intro` then one line each; [] clears them. */
    showProblems(problems, intro) {
      messages.problems = problems.length ? [intro, ...problems.map((p) => `• ${p}`)] : [];
      show();
    },
    setEngineErrors(list) {
      messages.engine = list;
      show();
    },
    /** The views that failed in the last render (only redrawn when something is or was listed). */
    setViewErrors(list) {
      if (!list.length && !messages.views.length) return;
      messages.views = list;
      show();
    },
    /** An edit went through: the notices of refused edits go. */
    clearEdits() {
      for (const box of container.querySelectorAll('.ae-section-notice')) box.hidden = true;
      if (messages.edit) {
        messages.edit = null;
        show();
      }
    },
    destroy() {
      for (const type of TOUCHES) container.removeEventListener(type, touched, true);
    },
  };
}
