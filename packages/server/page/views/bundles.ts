// The other bundles: a transcript turn by turn, a run step by step, an export's conversations, and
// tree heads (one, or two with the proof between them).
import type { ConsistencyVerdict, ExportVerdict, RunVerdict, TranscriptVerdict } from '@svc/core';
import { type Child, copyable, el, facts, whenMs } from '../dom.js';
import { type Doc, isObj, obj, str } from '../doc.js';
import { headsPicture } from '../pictures.js';
import { receiptFacts } from './receipt.js';
import { signedText } from './text.js';

export function transcriptContent(doc: Doc, v: TranscriptVerdict): Child[] {
  const turns = Array.isArray(doc.turns) ? doc.turns : [];
  const firstBad = v.turns.find((t) => !t.verdict.overallOk);
  const list = el('ol', { class: 'turns', id: 'turns' });
  for (const t of v.turns) {
    const turn = obj(turns[t.index]);
    const ok = t.verdict.overallOk;
    const r = t.verdict.receipt;
    const why = ok
      ? 'verifies'
      : !r.present
        ? 'no receipt'
        : !r.answerHashOk
          ? 'its answer was changed after signing'
          : !r.sigOk
            ? 'its signature does not verify'
            : 'a layer fails';
    const prompt = str(turn.prompt);
    list.append(
      el(
        'li',
        { id: `turn-${t.index}`, class: ok ? 'turn ok' : 'turn bad' },
        el('p', { class: 'label' }, `Turn ${t.index + 1}: ${ok ? '✓' : '✗'} ${why}`),
        prompt !== null ? signedText('p', { class: 'q' }, 'Q: ', prompt, `question of turn ${t.index + 1}`) : null,
        signedText('p', { class: 'a' }, 'A: ', str(turn.answer) ?? '(none)', `answer of turn ${t.index + 1}`),
      ),
    );
  }
  return [
    facts([
      // The title is no turn's content: no signature covers it.
      ['Title (not signed)', str(doc.title)],
      ['Turns', `${v.turns.filter((t) => t.verdict.overallOk).length} of ${v.turns.length} verify`],
    ]),
    firstBad
      ? el(
          'p',
          {},
          el('a', { href: `#turn-${firstBad.index}`, id: 'first-failure' }, `Jump to the first failing turn (turn ${firstBad.index + 1})`),
        )
      : null,
    list,
  ];
}

const shown = (v: unknown): string => (v === undefined || v === null ? '' : String(v));

export function runContent(doc: Doc, v: RunVerdict): Child[] {
  const run = obj(doc.run);
  const steps = Array.isArray(run.steps) ? run.steps : [];
  const table = el(
    'table',
    { id: 'steps' },
    el('caption', {}, 'Steps'),
    el(
      'tr',
      {},
      el('th', { scope: 'col' }, '#'),
      el('th', { scope: 'col' }, 'Method'),
      el('th', { scope: 'col' }, 'Output hash'),
      el('th', { scope: 'col' }, 'Credits'),
    ),
  );
  for (const s of steps.slice(0, 500)) {
    const st = obj(s);
    table.append(
      el(
        'tr',
        {},
        el('td', {}, shown(st.i)),
        el('td', {}, `${shown(st.action)}${st.verify ? ` (checked: ${shown(st.verify)})` : ''}`),
        el('td', {}, el('code', {}, shown(st.output_sha256))),
        el('td', {}, shown(st.credits)),
      ),
    );
  }
  return [
    facts([
      ['Goal', str(run.goal)],
      ['Status', str(run.status)],
      ['Stop reason', str(run.stopReason)],
      [
        'Budget',
        run.budgetCredits !== undefined
          ? `${shown(run.spentCredits ?? '?')} of ${shown(run.budgetCredits)} credits spent (${v.run.budgetOk ? 'adds up' : 'does NOT add up'})`
          : null,
      ],
      ['Steps', `${v.run.steps} (at most ${shown(run.maxSteps ?? '?')})`],
    ]),
    table,
    receiptFacts(doc.receipt, v.receipt, 'Run'),
  ];
}

export function exportContent(doc: Doc, v: ExportVerdict): Child[] {
  const convs = (Array.isArray(doc.conversations) ? doc.conversations : []).map(obj);
  const messages = convs.reduce((n, c) => n + (Array.isArray(c.messages) ? c.messages.length : 0), 0);
  return [
    facts([
      ['Conversations', String(convs.length)],
      ['Messages', String(messages)],
      ['Exported (display only, not signed)', str(doc.exported)],
      ['Counts', v.export.countsOk ? 'match the signed manifest' : 'do NOT match the signed manifest'],
    ]),
    el(
      'ul',
      { id: 'conversations' },
      ...convs
        .slice(0, 200)
        .map((c) =>
          el('li', {}, `${str(c.title) ?? str(c.id) ?? '(untitled)'}: ${Array.isArray(c.messages) ? c.messages.length : 0} messages`),
        ),
    ),
    receiptFacts(isObj(doc.proof) ? doc.proof.receipt : undefined, v.receipt, 'Export'),
  ];
}

/** A tree head as the verdict reports it. */
export interface HeadView {
  log?: string | null | undefined;
  treeSize?: number | null | undefined;
  rootHash?: string | null | undefined;
  timestamp?: number | null | undefined;
}

export function headFacts(h: HeadView): HTMLDListElement {
  return facts([
    ['Log', h.log ?? null],
    ['Size', h.treeSize !== null && h.treeSize !== undefined ? `${h.treeSize} leaves` : null],
    ['Root hash', h.rootHash ? copyable(h.rootHash, 'root hash') : null],
    // A tree head's timestamp is in milliseconds (RFC 6962), a receipt's ts in seconds.
    ['Signed at', whenMs(h.timestamp)],
  ]);
}

export function consistencyContent(v: ConsistencyVerdict): Child[] {
  const point = (h: HeadView) => ({ treeSize: h.treeSize ?? undefined, timestamp: h.timestamp ?? undefined });
  return [
    el('h3', {}, 'Older head'),
    headFacts({ ...v.consistency.old, log: v.old.sth.log }),
    el('h3', {}, 'Newer head'),
    headFacts({ ...v.consistency.new, log: v.new.sth.log }),
    headsPicture(point(v.consistency.old), point(v.consistency.new), v.timestampOrderOk),
  ];
}
