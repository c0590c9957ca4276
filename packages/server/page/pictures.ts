// Pictures the page draws from the document itself, offline: an RFC 6962 inclusion path from a
// leaf to its root, and two tree heads on a line of sizes and a line of time. SVG built with DOM
// calls (no markup strings), each with a text alternative for screen readers.

const NS = 'http://www.w3.org/2000/svg';
let seq = 0;

function svg(tag: string, attrs: Record<string, string | number> = {}, text?: string): SVGElement {
  const e = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  if (text !== undefined) e.textContent = text;
  return e;
}

/**
 * The steps of an RFC 9162 s.2.1.3.2 inclusion path: at each, the sibling hash sits on the left
 * or the right of the running node, at a tree level. Null when index and size cannot hold.
 */
/** One step of an inclusion path: the sibling's side of the running node, its hash, its level. */
export interface InclusionStep {
  side: 'left' | 'right';
  hash: string;
  level: number;
}

export function inclusionSteps(index: number, size: number, hashes: readonly string[]): InclusionStep[] | null {
  if (!(Number.isSafeInteger(index) && Number.isSafeInteger(size) && index >= 0 && index < size)) return null;
  let fn = index;
  let sn = size - 1;
  let level = 0;
  const steps: InclusionStep[] = [];
  for (const h of hashes) {
    if (sn === 0) return null;
    if (fn % 2 === 1 || fn === sn) {
      steps.push({ side: 'left', hash: h, level });
      if (fn % 2 === 0)
        while (fn % 2 === 0 && fn !== 0) {
          fn = Math.floor(fn / 2);
          sn = Math.floor(sn / 2);
          level++;
        }
    } else steps.push({ side: 'right', hash: h, level });
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
    level++;
  }
  return sn === 0 ? steps : null;
}

const short = (h: string) => `${String(h).slice(0, 8)}…`;

/** The path from leaf `index` to the root of a tree of `size` leaves, drawn bottom to top. */
export function inclusionPicture(index: number, size: number, hashes: readonly string[], rootLabel: string): HTMLElement {
  const steps = inclusionSteps(index, size, hashes);
  const figure = document.createElement('figure');
  figure.className = 'picture';
  if (!steps) {
    figure.textContent = 'The inclusion path does not fit a tree of this size, so it cannot be drawn.';
    return figure;
  }
  const W = 340;
  const H = 56;
  const height = (steps.length + 1) * H + 8;
  const s = svg('svg', { viewBox: `0 0 ${W} ${height}`, width: '100%', role: 'img', 'aria-labelledby': 'incl-title', class: 'tree' });
  s.append(
    svg(
      'title',
      { id: 'incl-title' },
      `Inclusion path of leaf ${index} in a tree of ${size} leaves: ${steps.length} sibling hashes up to the root`,
    ),
  );
  const box = (x: number, y: number, w: number, label: string, cls: string) => {
    const g = svg('g', { class: cls });
    g.append(svg('rect', { x, y, width: w, height: 30, rx: 5 }), svg('text', { x: x + w / 2, y: y + 20, 'text-anchor': 'middle' }, label));
    return g;
  };
  const cx = W / 2 - 60;
  const yOf = (i: number) => height - (i + 1) * H;
  // A tree of one leaf: the leaf hash is the root.
  if (steps.length === 0) s.append(box(W / 2 - 100, yOf(0), 200, `leaf ${index} = ${rootLabel}`, 'node root'));
  else s.append(box(cx, yOf(0), 120, `leaf ${index}`, 'node leaf'));
  steps.forEach((st, i) => {
    const y = yOf(i + 1);
    s.append(svg('line', { x1: W / 2, y1: y + 30, x2: W / 2, y2: yOf(i), class: 'edge' }));
    const sx = st.side === 'left' ? 4 : W - 104;
    s.append(svg('line', { x1: st.side === 'left' ? 104 : W - 104, y1: yOf(i) + 15, x2: W / 2, y2: y + 30, class: 'edge sibling-edge' }));
    s.append(box(sx, yOf(i), 100, short(st.hash), 'node sibling'));
    s.append(box(cx, y, 120, i === steps.length - 1 ? rootLabel : `level ${st.level + 1}`, i === steps.length - 1 ? 'node root' : 'node'));
  });
  const caption = document.createElement('figcaption');
  caption.textContent = `Inclusion path: leaf ${index} of ${size}, hashed with ${steps.length} sibling${steps.length === 1 ? '' : 's'} (left or right as drawn) up to the root.`;
  figure.append(s, caption);
  return figure;
}

/** A tree head as the picture needs it: its size and signing time (ms), where the verdict has them. */
export interface HeadPoint {
  treeSize?: number | undefined;
  timestamp?: number | undefined;
}

/** Two tree heads: the older as a prefix of the newer, and both on a line of time. */
export function headsPicture(older: HeadPoint, newer: HeadPoint, orderOk: boolean | undefined): HTMLElement {
  const figure = document.createElement('figure');
  figure.className = 'picture';
  const W = 340;
  const id = `heads-title-${++seq}`;
  const s = svg('svg', { viewBox: `0 0 ${W} 150`, width: '100%', role: 'img', 'aria-labelledby': id, class: 'heads' });
  const o = older.treeSize ?? 0;
  const n = Math.max(newer.treeSize ?? 0, 1);
  s.append(svg('title', { id }, `Older head: ${o} leaves; newer head: ${n} leaves${orderOk === false ? '; signed out of order' : ''}`));
  s.append(svg('rect', { x: 10, y: 20, width: W - 20, height: 24, class: 'bar-new' }));
  s.append(svg('rect', { x: 10, y: 20, width: Math.max(2, ((W - 20) * o) / n), height: 24, class: 'bar-old' }));
  s.append(svg('text', { x: 10, y: 14 }, `older: ${o} leaves`));
  s.append(svg('text', { x: W - 10, y: 60, 'text-anchor': 'end' }, `newer: ${newer.treeSize ?? '?'} leaves`));
  // The time line: the older head should be signed first.
  s.append(svg('line', { x1: 10, y1: 110, x2: W - 10, y2: 110, class: 'axis' }));
  const t0 = older.timestamp ?? 0;
  const t1 = newer.timestamp ?? 0;
  const lo = Math.min(t0, t1);
  const span = Math.max(1, Math.abs(t1 - t0));
  const x = (t: number) => 20 + ((W - 40) * (t - lo)) / span;
  for (const [t, label] of [
    [t0, 'older signed'],
    [t1, 'newer signed'],
  ] as const) {
    s.append(svg('circle', { cx: x(t), cy: 110, r: 6, class: orderOk === false ? 'tick bad' : 'tick' }));
    s.append(svg('text', { x: x(t), y: label.startsWith('older') ? 96 : 136, 'text-anchor': x(t) > W / 2 ? 'end' : 'start' }, label));
  }
  const caption = document.createElement('figcaption');
  caption.textContent =
    orderOk === false
      ? 'The older head was signed after the newer one: the log went back in time (a rollback).'
      : 'The older head is a prefix of the newer one, and was signed first.';
  figure.append(s, caption);
  return figure;
}
