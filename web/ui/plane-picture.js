// A picture on a plane (the plane section's two): an SVG whose children are kept by key between
// updates, so their transforms transition (instant under reduced motion); axes through the
// origin, arrows from it, axis titles, and labels placed beside their points where none overlaps
// another label, a point, a line or an axis title (lib/plane.js placeLabels), with a leader line
// back to its point where a label had to move away. Coordinates come from lib/plane.js planeScale (S).
import { placeLabels } from '../lib/plane.js';
import { svgEl } from './svg.js';

// A label's box: 11 px text (its glyphs' box is about 12.8 px tall) on a baseline BASELINE px
// below the box's top.
const LABEL_HEIGHT = 14;
const BASELINE = 11;
const TITLE_SIZE = 9; // the axis titles' font size (explorer.css .ae-plane-axis-title)

/**
 * @param {Document} doc
 * @param {string} id  the picture's key prefix
 * @returns {{svg, item(key, make), sweep(), axes(S), arrow(key, S, p, cls, label, data), axisTitles(S, titles),
 *            placeAll(size, anchors)}}  call sweep() after an update's items: unused ones go
 */
export function createPlanePicture(doc, id) {
  const svg = svgEl(doc, 'svg', { class: 'ae-plane', role: 'img' });
  svg.dataset.id = id;
  const keyed = new Map();
  function item(key, make) {
    let el = keyed.get(key);
    if (!el) {
      el = make();
      keyed.set(key, el);
      svg.append(el);
    }
    el.dataset.live = '1';
    return el;
  }
  // A label's width in its own font, measured on a canvas: getComputedTextLength() would lay
  // out the whole page at each call after the labels changed (a fifth of a page load's work).
  let canvas = null;
  function labelWidth(text) {
    if (typeof text.getComputedTextLength !== 'function') return text.textContent.length * 6.5; // no layout engine
    canvas ||= doc.createElement('canvas').getContext('2d');
    const font = doc.defaultView.getComputedStyle(text);
    canvas.font = `${font.fontStyle} ${font.fontWeight} ${font.fontSize} ${font.fontFamily}`;
    return canvas.measureText(text.textContent).width;
  }
  // The axis titles' boxes (axisTitles below): the x title along the bottom right, the y title
  // down the left edge.
  let titles = ['', ''];
  function titleBoxes(size) {
    const width = (t) => t.length * TITLE_SIZE * 0.6;
    const [xw, yw] = titles.map(width);
    return [
      { x: size - 4 - xw, y: size - 4 - TITLE_SIZE, w: xw, h: TITLE_SIZE + 3 },
      { x: 1, y: 4, w: TITLE_SIZE + 4, h: yw },
    ];
  }
  return {
    svg,
    item,
    sweep() {
      for (const [key, el] of keyed) {
        if (el.dataset.live !== '1') {
          el.remove();
          keyed.delete(key);
        } else delete el.dataset.live;
      }
    },
    axes(S) {
      const [ox, oy] = S.at([0, 0]);
      const x = item(`${id}-x`, () => svgEl(doc, 'line', { class: 'ae-plane-axis', x1: 0, x2: S.size }));
      const y = item(`${id}-y`, () => svgEl(doc, 'line', { class: 'ae-plane-axis', y1: 0, y2: S.size }));
      x.setAttribute('y1', oy);
      x.setAttribute('y2', oy);
      y.setAttribute('x1', ox);
      y.setAttribute('x2', ox);
    },
    /** An arrow from the origin to p: a line inside a group whose tip is moved by transform. */
    arrow(key, S, p, cls, label, data) {
      const [x, y] = S.at(p);
      const [ox, oy] = S.at([0, 0]);
      const g = item(key, () => {
        const group = svgEl(doc, 'g', { class: `ae-plane-arrow ${cls}` });
        group.append(
          svgEl(doc, 'line', { class: 'ae-plane-shaft' }),
          svgEl(doc, 'circle', { r: 3.5 }),
          svgEl(doc, 'text'),
        );
        return group;
      });
      g.setAttribute('class', `ae-plane-arrow ${cls}`);
      const [line, dot, text] = g.children;
      line.setAttribute('x1', ox);
      line.setAttribute('y1', oy);
      line.setAttribute('x2', x);
      line.setAttribute('y2', y);
      dot.style.transform = `translate(${x}px, ${y}px)`;
      text.textContent = label;
      for (const [k, v] of Object.entries(data)) g.dataset[k] = String(v);
      return { x, y, text };
    },
    axisTitles(S, [xTitle, yTitle]) {
      titles = [xTitle, yTitle];
      const xt = item(`${id}-xt`, () => svgEl(doc, 'text', { class: 'ae-plane-axis-title' }));
      const yt = item(`${id}-yt`, () => svgEl(doc, 'text', { class: 'ae-plane-axis-title' }));
      xt.textContent = xTitle;
      xt.setAttribute('x', S.size - 4);
      xt.setAttribute('y', S.size - 4);
      xt.setAttribute('text-anchor', 'end');
      yt.textContent = yTitle;
      yt.setAttribute('transform', `translate(12, 4) rotate(90)`);
      yt.setAttribute('text-anchor', 'start');
    },
    /**
     * Every label ({x, y, text}: its point and its <text>) beside its point, inside the picture,
     * clear of the other labels and points, of every line drawn (axes, arrows, the query's line,
     * shadows) and of the axis titles; a leader line where a label sits away from its point.
     */
    placeAll(size, anchors) {
      const segments = [...svg.querySelectorAll('line:not(.ae-plane-leader)')].map((l) => ({
        x1: Number(l.getAttribute('x1')),
        y1: Number(l.getAttribute('y1')),
        x2: Number(l.getAttribute('x2')),
        y2: Number(l.getAttribute('y2')),
      }));
      const boxes = placeLabels(
        anchors.map(({ x, y, text }) => ({ x, y, w: labelWidth(text) + 2, h: LABEL_HEIGHT })),
        size,
        { segments, boxes: titleBoxes(size) },
      );
      for (const l of svg.querySelectorAll('line.ae-plane-leader')) l.remove();
      anchors.forEach(({ text }, n) => {
        const b = boxes[n];
        text.setAttribute('text-anchor', 'start');
        text.style.transform = `translate(${b.x + 1}px, ${b.y + BASELINE}px)`;
        text.dataset.box = `${b.x} ${b.y} ${b.w} ${b.h}`;
        if (b.leader) svg.append(svgEl(doc, 'line', { class: 'ae-plane-leader', ...b.leader }));
      });
    },
  };
}
