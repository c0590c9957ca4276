// A proof bundle: what was signed (or only claimed), where it is logged, and its checks.
import type { MessageVerdict, ProofVerdict } from '@svc/core';
import { parseTlogProof } from '@svc/core/tlog';
import { type Child, el, facts, row, section } from '../dom.js';
import { type Doc, obj, str } from '../doc.js';
import { inclusionPicture } from '../pictures.js';
import { okText, receiptFacts, receiptRows } from './receipt.js';
import { answerView, questionView } from './text.js';

export function proofContent(doc: Doc, v: ProofVerdict): Child[] {
  const parts: Child[] = [answerView(doc.answer, doc.excerpt, v.excerpt)];
  // Text the signature does not cover is the bundle's claim, never "what was signed".
  if (v.receipt && v.receipt.answerHashOk === false)
    parts.unshift(
      el(
        'p',
        { class: 'bad', id: 'claimed-not-signed' },
        'Claimed, not signed: this text does not match the signed hash; it was changed after signing.',
      ),
    );
  if (v.excerpt && !v.excerpt.ok)
    parts.push(
      el('p', { class: 'bad', id: 'quote-missing' }, `Pinned quote not found in the signed answer: “${str(obj(doc.excerpt).quote) ?? ''}”`),
    );
  parts.push(questionView(doc, v.receipt), receiptFacts(doc.receipt, v.receipt, 'Answer'));
  return parts;
}

export function logPicture(doc: Doc, v: ProofVerdict): HTMLElement | null {
  if (!v.log || typeof doc.tlogProof !== 'string') return null;
  try {
    const p = parseTlogProof(doc.tlogProof);
    const hex = p.proof.map((h) => Array.from(h, (b) => b.toString(16).padStart(2, '0')).join(''));
    return section(
      'Where the answer is logged',
      'logged',
      facts([
        [v.log.policyChecked && v.log.logRecognized ? 'Log' : 'Log (named by the checkpoint; its signature not checked)', p.parsed.origin],
        ['Leaf index', String(p.index)],
        ['Tree size', String(p.parsed.size)],
        ['Path', v.log.ok ? 'leads from the answer to the checkpoint root' : 'does NOT lead to the checkpoint root'],
      ]),
      inclusionPicture(p.index, p.parsed.size, hex, 'checkpoint root'),
    );
  } catch {
    return null;
  }
}

/** A message-form answer: why it ended, its refusal and tool calls, each as signed. */
function messageRow(m: MessageVerdict): HTMLLIElement {
  if (!m.ok) return row('Answer form', false, 'message: the signed answer is NOT a well-formed message');
  const calls = (m.toolCalls ?? []).map((c) => `${c.name}(${c.arguments})`);
  return row(
    'Answer form',
    true,
    `message, finish_reason ${m.finishReason}${m.refusal !== undefined ? `; refusal: “${m.refusal}”` : ''}${calls.length ? `; tool calls: ${calls.join(', ')}` : ''}`,
  );
}

export function proofRows(v: ProofVerdict, signs = 'Answer'): HTMLLIElement[] {
  const out = receiptRows(v.receipt, signs);
  const r = v.receipt;
  if (r?.present && !r.councilGrounded) out.push(row('Council', null, 'single-model fallback (signed as such)'));
  if (r && r.questionBinding !== undefined)
    out.push(
      r.questionBinding === 'none'
        ? row(
            'Question',
            r.promptBound ? false : null,
            r.promptBound ? 'does NOT match the signed question' : 'shown above, not covered by any signature',
          )
        : row('Question', true, `attested (${r.questionBinding})`),
    );
  if (r?.request)
    out.push(
      row(
        'Request beyond the messages',
        r.request.ok,
        r.request.ok
          ? `disclosed and signed: ${(r.request.members ?? []).join(', ')}`
          : 'the disclosed request does NOT match what was signed',
      ),
    );
  if (v.message) out.push(messageRow(v.message));
  if (v.excerpt)
    out.push(
      row(
        'Pinned quote',
        v.excerpt.ok,
        okText(v.excerpt.ok, 'an exact slice of the signed answer (marked above)', 'NOT in the signed answer'),
      ),
    );
  if (v.bridge) {
    out.push(row('Model-plane signature (ML-DSA-87)', v.bridge.primaryOk, okText(v.bridge.primaryOk, 'valid', 'INVALID')));
    if (v.bridge.cosignPresent)
      out.push(row('Model-plane co-signature (Falcon-1024)', v.bridge.secondaryOk, okText(v.bridge.secondaryOk, 'valid', 'INVALID')));
    if (v.bridge.primaryOk && v.bridge.keyRecognized === false)
      out.push(row('Model-plane key', null, 'not one this page pins: not evidence of origin'));
  }
  if (v.scitt) out.push(scittRow(v.scitt));
  if (v.log) {
    // The path alone proves inclusion under a checkpoint anyone could sign: which log it is, only
    // the log's keys say. Without them no log is named as where the answer is logged.
    const judged = v.log.policyChecked && v.log.logRecognized;
    out.push(
      row(
        'Transparency log',
        v.log.ok ? (judged ? true : null) : false,
        !v.log.ok
          ? 'the inclusion proof does NOT verify'
          : judged
            ? `included at index ${v.log.index} of ${v.log.treeSize} in ${v.log.origin}, under a checkpoint signed by that log's key${v.log.quorumMet ? ' and cosigned by enough of its witnesses' : ''}`
            : `the path leads to the checkpoint the proof carries (index ${v.log.index} of ${v.log.treeSize}); checkpoint signature not checked: the log it names (${v.log.origin ?? 'none'}) is a claim, not attested`,
      ),
    );
  }
  return out;
}

/** The SCITT Transparent Statement a proof carries: checked with the serving log's keys, or said not to be. */
function scittRow(s: NonNullable<ProofVerdict['scitt']>): HTMLLIElement {
  if (!s.checked)
    return row('SCITT statement', null, 'carried, not checked: no log keys pinned (open this page from the server that logged it)');
  const receipts = (s.receipts ?? []).map((r) => `${r.alg ?? '?'} ${r.ok ? 'valid' : (r.error ?? 'failed')}`).join(', ');
  if (!s.ok) return row('SCITT statement', false, `INVALID (${s.error ?? 'failed'}): receipts ${receipts || 'none'}`);
  if (s.logRecognized === false)
    return row('SCITT statement', null, `valid; its receipts come from a log this page does not pin (${receipts})`);
  return row('SCITT statement', true, `valid, registered in this server's log: receipts ${receipts}`);
}
