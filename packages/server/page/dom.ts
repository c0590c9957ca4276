// Small DOM helpers for the verifier page. Everything a document carries reaches the page as text
// nodes or attribute values, never as markup: a hostile document cannot inject anything.

/** What a view may place in the page: nodes and text, nested, with gaps (null, false) left out. */
export type Child = Node | string | null | undefined | false | readonly Child[];
/** Attribute values; `on…` members are listeners, `class` and `text` set those properties. */
export type Attrs = Record<string, string | number | boolean | null | undefined | EventListener>;

/** An element with attributes and children (strings become text nodes). */
export function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') e.addEventListener(k.slice(2), v);
    else if (k === 'class') e.className = String(v);
    else if (k === 'text') e.textContent = String(v);
    else e.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of (children as unknown[]).flat(Number.POSITIVE_INFINITY) as (Node | string | null | undefined | false)[])
    if (c !== null && c !== undefined && c !== false) e.append(c);
  return e;
}

/** One line of the verdict: a check with its state (ok, bad, or information) and what it means. */
export function row(label: string, ok: boolean | null | undefined, text: Child): HTMLLIElement {
  const state = ok === true ? 'ok' : ok === false ? 'bad' : 'info';
  const mark = ok === true ? '✓' : ok === false ? '✗' : 'i';
  return el(
    'li',
    { class: state },
    el('span', { class: 'mark', 'aria-hidden': 'true' }, mark),
    el('span', { class: 'sr-only' }, ok === true ? 'passed: ' : ok === false ? 'failed: ' : 'note: '),
    el('strong', {}, `${label}: `),
    text,
  );
}

/** A definition list of facts; values may be strings or nodes. */
export function facts(pairs: readonly (readonly [string, Child])[]): HTMLDListElement {
  const dl = el('dl', { class: 'facts' });
  for (const [k, v] of pairs) if (v !== undefined && v !== null && v !== '' && v !== false) dl.append(el('dt', {}, k), el('dd', {}, v));
  return dl;
}

/** A value shown whole (key ids, hashes) with a button that copies it. */
export function copyable(value: string, label: string): HTMLSpanElement {
  const code = el('code', { class: 'hash' }, value);
  const button = el(
    'button',
    {
      type: 'button',
      class: 'copy',
      'aria-label': `Copy ${label}`,
      onclick: async () => {
        try {
          await navigator.clipboard.writeText(value);
          button.textContent = 'Copied';
        } catch {
          // No clipboard (a local file, an old browser): select the text so it can be copied by hand.
          const range = document.createRange();
          range.selectNodeContents(code);
          getSelection()?.removeAllRanges();
          getSelection()?.addRange(range);
          button.textContent = 'Selected';
        }
      },
    },
    'Copy',
  );
  return el('span', { class: 'copyable' }, code, button);
}

/** A time in milliseconds since 1970 (a tree head's `timestamp`) as `when` shows seconds. */
export function whenMs(ms: unknown): string | null {
  return typeof ms === 'number' && Number.isSafeInteger(ms) && ms >= 0 ? when(Math.floor(ms / 1000)) : null;
}

/** A time in seconds since 1970 (a receipt's `ts`) as local time and UTC, or null when it is not one. */
export function when(seconds: unknown): string | null {
  if (typeof seconds !== 'number' || !Number.isSafeInteger(seconds) || seconds < 0) return null;
  const d = new Date(seconds * 1000);
  if (Number.isNaN(d.getTime())) return null;
  return `${d.toLocaleString()} (local); ${d.toISOString().replace('.000Z', 'Z')} (UTC)`;
}

export function section(title: string, id: string, ...children: Child[]): HTMLElement {
  return el('section', { class: 'panel', id, 'aria-labelledby': `${id}-h` }, el('h2', { id: `${id}-h` }, title), ...children);
}

// Format characters (Unicode category Cf): direction overrides and isolates (U+202A-U+202E,
// U+2066-U+2069), marks (U+200E, U+200F, U+061C), zero-width characters, soft hyphens, tags. In
// signed text they reorder or hide what was signed, so the page never renders them as such.
const HIDDEN = /\p{Cf}/gu;

/** `U+202E`: a code point as people write it. */
const codePoint = (ch: string) => `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;

/**
 * Text as nodes in which every format character (bidi control, zero-width, soft hyphen) is shown
 * as a visible marked code point instead of acting, so signed text reads as it was signed. The
 * count is how many there were.
 */
export function revealed(text: string): { nodes: (string | HTMLElement)[]; count: number } {
  const nodes: (string | HTMLElement)[] = [];
  let count = 0;
  let at = 0;
  for (const m of text.matchAll(HIDDEN)) {
    if (m.index > at) nodes.push(text.slice(at, m.index));
    const cp = codePoint(m[0]);
    nodes.push(el('span', { class: 'cp', title: `${cp}: an invisible or direction-changing character` }, `⟨${cp}⟩`));
    count++;
    at = m.index + m[0].length;
  }
  if (at < text.length) nodes.push(text.slice(at));
  return { nodes, count };
}
