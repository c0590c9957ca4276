// Signed text as it was signed: the answer with a pinned quote marked, the question with what
// covers it, and any invisible or direction-changing character shown as its code point.
import type { ExcerptVerdict, ReceiptVerdict } from '@svc/core';
import { type Attrs, type Child, el, revealed } from '../dom.js';
import { type Doc, isObj, str } from '../doc.js';

/** The answer, with a pinned quote marked in place, or said to be absent from it. */
export function answerView(answer: unknown, excerpt: unknown, excerptVerdict: ExcerptVerdict | undefined): Child {
  const box = el('blockquote', { class: 'answer', id: 'answer-text' });
  if (typeof answer !== 'string') {
    box.textContent = '(no answer text)';
    return box;
  }
  let hidden = 0;
  const show = (t: string) => {
    const r = revealed(t);
    hidden += r.count;
    return r.nodes;
  };
  const start = isObj(excerpt) && typeof excerpt.start === 'number' ? excerpt.start : null;
  const end = isObj(excerpt) && typeof excerpt.end === 'number' ? excerpt.end : null;
  if (excerptVerdict?.ok && start !== null && end !== null) {
    const cps = Array.from(answer);
    box.append(
      ...show(cps.slice(0, start).join('')),
      el('mark', { id: 'quote' }, ...show(cps.slice(start, end).join(''))),
      ...show(cps.slice(end).join('')),
    );
  } else box.append(...show(answer));
  return hidden > 0 ? [hiddenNotice(hidden, 'answer'), box] : box;
}

/** Said above any text whose invisible or direction-changing characters are shown as code points. */
function hiddenNotice(n: number, what: string): HTMLElement {
  return el(
    'p',
    { class: 'info hidden-chars', id: `${what.replace(/\s+/g, '-')}-hidden-chars` },
    `The ${what} contains ${n} invisible or direction-changing character${n === 1 ? '' : 's'}, shown as ⟨U+…⟩ where ${n === 1 ? 'it stands' : 'they stand'}: they would otherwise hide or reorder what was signed.`,
  );
}

/** Signed text as it was signed: format characters shown as code points, with a notice when any. */
export function signedText(tag: 'p' | 'blockquote', attrs: Attrs, prefix: string, text: string, what: string): Child {
  const r = revealed(text);
  const node = el(tag, attrs, prefix, ...r.nodes);
  return r.count > 0 ? [hiddenNotice(r.count, what), node] : node;
}

export function questionView(doc: Doc, r: ReceiptVerdict | undefined): Child {
  const q = str(doc.prompt);
  if (q === null) return null;
  const binding = r?.questionBinding;
  const state =
    binding && binding !== 'none'
      ? `attested: covered by the signature (${binding})`
      : r?.promptBound
        ? 'does NOT match the question the signature covers'
        : 'not covered by any signature: shown as the document carries it, not attested';
  return el(
    'div',
    { class: 'question' },
    el('p', { class: 'label' }, `Question (${state})`),
    signedText('blockquote', { id: 'question-text' }, '', q, 'question'),
  );
}
