// Small DOM helpers for the verifier page. Everything a document carries reaches the page as text
// nodes or attribute values, never as markup: a hostile document cannot inject anything.

/** An element with attributes and children (strings become text nodes). */
export function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') e.className = v;
    else if (k === 'text') e.textContent = v;
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat()) if (c !== null && c !== undefined && c !== false) e.append(c);
  return e;
}

/** One line of the verdict: a check with its state (ok, bad, or information) and what it means. */
export function row(label, ok, text) {
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
export function facts(pairs) {
  const dl = el('dl', { class: 'facts' });
  for (const [k, v] of pairs) if (v !== undefined && v !== null && v !== '') dl.append(el('dt', {}, k), el('dd', {}, v));
  return dl;
}

/** A value shown whole (key ids, hashes) with a button that copies it. */
export function copyable(value, label) {
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

/** A time in seconds since 1970 as local time and UTC, or null when it is not one. */
export function when(seconds) {
  if (!Number.isSafeInteger(seconds) || seconds < 0) return null;
  const d = new Date(seconds * 1000);
  if (Number.isNaN(d.getTime())) return null;
  return `${d.toLocaleString()} (local); ${d.toISOString().replace('.000Z', 'Z')} (UTC)`;
}

export function section(title, id, ...children) {
  return el('section', { class: 'panel', id, 'aria-labelledby': `${id}-h` }, el('h2', { id: `${id}-h` }, title), ...children);
}
