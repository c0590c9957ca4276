// A receipt layer: the facts its signed receipt carries, and its checks named for what the
// receipt signs in each kind (an answer, a run, a manifest, a tree head).
import type { EnvelopeCheck, EnvelopesVerdict, ReceiptVerdict } from '@svc/core';
import { copyable, facts, row, when } from '../dom.js';
import { isObj, str } from '../doc.js';

export const okText = (ok: boolean | undefined, good: string, bad: string): string => (ok ? good : bad);

/** Receipt facts: model, time, governance, council, framing, key. */
export function receiptFacts(receipt: unknown, verdict: ReceiptVerdict | undefined, kindLabel: string): HTMLDListElement | null {
  if (!isObj(receipt)) return null;
  const framing = isObj(receipt.framing)
    ? Object.entries(receipt.framing)
        .map(([k, v]) => `${k}: ${JSON.stringify(v)}`)
        .join(', ')
    : null;
  return facts([
    ['Model', str(receipt.model)],
    [`${kindLabel} signed at`, when(receipt.ts)],
    ['Governance flag', receipt.governance_flag !== undefined ? String(receipt.governance_flag) : null],
    ['Council', verdict ? (verdict.councilGrounded ? 'grounded by the council' : 'single-model fallback (signed as such)') : null],
    ['Framing disclosure', framing],
    ['Algorithm', str(receipt.algo)],
    ['Signing key id', typeof receipt.key_id === 'string' ? copyable(receipt.key_id, 'signing key id') : null],
  ]);
}

/** The checks of a receipt layer, named for what the receipt signs in this kind. */
export function receiptRows(r: ReceiptVerdict | undefined, signs: string): HTMLLIElement[] {
  if (!r) return [];
  if (!r.present) return [row('Receipt', false, 'absent: nothing here is signed')];
  const out = [
    row(
      `${signs} hash`,
      r.answerHashOk,
      okText(
        r.answerHashOk,
        `matches the hash the signature covers`,
        `does NOT match the signed hash: the ${signs.toLowerCase()} was changed`,
      ),
    ),
    row('Receipt signature (ML-DSA-87)', r.sigOk, okText(r.sigOk, 'valid', 'INVALID: it does not verify against the embedded key')),
  ];
  if (r.diversity) out.push(row('SLH-DSA diversity signature', r.diversity.ok, okText(r.diversity.ok, 'valid', 'INVALID')));
  if (r.framing) out.push(row('Framing signature', r.framing.ok, okText(r.framing.ok, 'valid', 'INVALID')));
  if (r.envelopes) out.push(...envelopeRows(r.envelopes));
  return out;
}

/** One row per envelope (JWS, each COSE_Sign1): its signatures' algorithms, and why one failed. */
function envelopeRows(e: EnvelopesVerdict): HTMLLIElement[] {
  const said = (c: EnvelopeCheck) =>
    c.ok
      ? `valid: ${c.signatures.map((s) => s.alg).join(' and ')}, over the same signed receipt`
      : `INVALID (${c.error ?? 'malformed'}): ${c.signatures.map((s) => `${s.alg} ${s.ok ? 'valid' : (s.error ?? 'failed')}`).join(', ') || 'unreadable'}`;
  const rows: HTMLLIElement[] = [];
  if (e.jws) rows.push(row('JWS envelope (RFC 9964)', e.jws.ok, said(e.jws)));
  for (const [i, c] of (e.cose ?? []).entries()) rows.push(row(`COSE_Sign1 envelope ${i + 1} (RFC 9964)`, c.ok, said(c)));
  if (!e.checked) rows.push(row('Envelopes', null, 'carried, not checked'));
  else if (!e.jws && !e.cose) rows.push(row('Envelopes', false, 'INVALID: not a JWS or COSE envelope'));
  return rows;
}
