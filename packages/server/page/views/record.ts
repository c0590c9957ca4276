// An AI Provenance Record: its attested fields with what each means, the published obligation
// table, and what is only the maker's own words.
import type { VerifyResponse } from '@svc/core';
import { type Child, copyable, el, facts, when } from '../dom.js';
import { type Doc, isObj, obj, str } from '../doc.js';

type RecordResponse = Extract<VerifyResponse, { record: unknown }>;

const RECORD_FIELDS: Record<string, string> = {
  signed: 'the embedded proof carries a signature that verifies',
  signer_recognized: 'the signature is by a key the service that made this record pins (not this page: see Origin)',
  algorithms: 'the signature algorithms that verified, with pinned keys',
  council_grounded: 'the signed receipt says the council grounded the answer',
  signed_at: 'the signing time in the signed receipt',
  question_attested: 'a signature covers the question',
  question_binding: 'how the question is bound',
  quote_attested: 'a pinned quote is an exact slice of the signed answer',
  receipt_key_id: 'the receipt key id',
  answer_sha256: 'the hash of the signed answer',
  logged: 'the answer is in a transparency log, with its inclusion proof',
  governance_flag: 'the governance flag in the signed receipt',
};

export function recordContent(doc: Doc, res: RecordResponse): Child[] {
  const t = el(
    'table',
    { id: 'attested' },
    el('caption', {}, 'Attested fields (recomputed from the embedded proof; equal, or the record would not verify)'),
    el('tr', {}, el('th', { scope: 'col' }, 'Field'), el('th', { scope: 'col' }, 'Value'), el('th', { scope: 'col' }, 'What it means')),
  );
  for (const [k, val] of Object.entries(obj(doc.attested)))
    t.append(
      el(
        'tr',
        {},
        el('td', {}, el('code', {}, k)),
        el(
          'td',
          {},
          typeof val === 'string' && val.length > 40 ? copyable(val, k) : k === 'signed_at' && when(val) ? when(val) : JSON.stringify(val),
        ),
        el('td', {}, RECORD_FIELDS[k] ?? ''),
      ),
    );
  const act = el(
    'table',
    { id: 'ai-act' },
    el('caption', {}, 'AI Act support (evidence, never a declaration of conformity)'),
    el('tr', {}, el('th', { scope: 'col' }, 'Provision'), el('th', { scope: 'col' }, 'Supports'), el('th', { scope: 'col' }, 'Limits')),
  );
  for (const a of Array.isArray(doc.ai_act_support) ? doc.ai_act_support : [])
    if (isObj(a))
      act.append(
        el(
          'tr',
          {},
          el('td', {}, `${str(a.article) ?? ''}: ${str(a.title) ?? ''}`),
          el('td', {}, str(a.supports) ?? ''),
          el('td', {}, str(a.limits) ?? ''),
        ),
      );
  const own = res.record.unattested ?? [];
  const notes = Array.isArray(doc.notes) ? doc.notes : [];
  const disclaimer = str(doc.disclaimer);
  return [
    facts([
      ['Schema', `${str(doc.schema) ?? ''} v${String(doc.schema_version ?? '?')}`],
      ['Organisation (the maker\u2019s own words, not attested)', str(obj(doc.subject).organisation)],
      ['Generated (not attested)', when(doc.generated)],
      ['Summary', res.record.summaryOk ? 'matches its embedded proof' : null],
      ['Origin claim', res.record.originClaimUnconfirmed ? 'NOT confirmed by the keys this page pins' : null],
    ]),
    t,
    act,
    notes.length
      ? el(
          'div',
          {},
          el('p', { class: 'label' }, 'Notes (not attested)'),
          el('ul', { id: 'notes' }, ...notes.map((n) => el('li', {}, String(n)))),
        )
      : null,
    own.length ? el('p', { class: 'info' }, `Its ${own.join(', ')} are the maker's own words: shown, not attested.`) : null,
    disclaimer ? el('p', { class: 'note', id: 'record-disclaimer' }, disclaimer) : null,
  ];
}
