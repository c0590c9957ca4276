// The SCITT layer of a proof bundle (`scitt`: base64url of a Transparent Statement). It holds when
// the statement is signed with the bundle's own receipt key (so whom it comes from is what the
// receipt's signerRecognized says), is a SHA-256 hash envelope of exactly this answer, and carries
// a receipt from a log the verifier trusts.
import { keyArray } from '../envelope/forms.js';
import type { ScittBundleChecker } from '../envelope/checker.js';
import { fromBase64Url, toHex } from '../encoding/bytes.js';
import { coseKey } from '../envelope/keys.js';
import type { ScittLog } from './receipt.js';
import { verifyTransparentStatement } from './transparent.js';
import type { ClassicalVerify } from './keys.js';

/**
 * A checker for `verifyBundle`'s `scitt` option: the logs whose receipts it trusts (their keys from
 * `/.well-known/scitt-keys`, and optionally a checkpoint each).
 *
 * @example
 * ```ts
 * const res = await verifyBundle(bundle, { trustedKeys, scitt: scittChecker({ logs: [{ keys: readCoseKeySet(scittKeys) }] }) });
 * if (res.kind === 'svc-proof') res.verdict.scitt; // { checked: true, ok, leaf, receipts }
 * ```
 */
export function scittChecker(opts: { logs: readonly ScittLog[]; classical?: ClassicalVerify }): ScittBundleChecker {
  // Checked here, once: inside verifyBundle a wrong form would read as every receipt unknown.
  for (const log of opts.logs) keyArray(log.keys, "a log's keys");
  return (transparent, answerSha256, receiptKey, compute) => {
    const bytes = fromBase64Url(transparent);
    if (!bytes) return { checked: true, ok: false, error: 'malformed', detail: 'scitt is base64url of a COSE_Sign1' };
    if (!receiptKey)
      return { checked: true, ok: false, error: 'unknown_key', detail: 'the bundle names no receipt key to check the statement by' };
    const v = verifyTransparentStatement(bytes, {
      issuers: [coseKey('ML-DSA-87', receiptKey)],
      logs: opts.logs,
      ...(compute ? { compute } : {}),
      ...(opts.classical ? { classical: opts.classical } : {}),
    });
    const receipts = v.receipts.map((r) => ({
      ok: r.ok,
      ...(r.alg ? { alg: r.alg } : {}),
      ...(r.error ? { error: r.error } : {}),
      ...(r.iss ? { iss: r.iss } : {}),
      ...(r.index !== undefined ? { index: r.index, size: r.size! } : {}),
      ...(r.root ? { root: r.root, positionSigned: r.positionSigned === true } : {}),
    }));
    const base = { checked: true, leaf: v.statement.leaf, receipts };
    // Receipts only from logs this verifier does not know: the statement is judged, the logs are
    // not, as tlogProof reports a log it does not know (logRecognized: false), never a failure.
    // A record made where that log is known then verifies the same here (E4, E5).
    const unknownLogs = !v.ok && v.error === 'no_receipt' && v.statement.ok;
    if (!v.ok && !unknownLogs) return { ...base, ok: false, error: v.error ?? 'malformed', ...(v.detail ? { detail: v.detail } : {}) };
    // About exactly this answer: a SHA-256 hash envelope whose payload is the answer's hash.
    if (v.statement.payloadHashAlg !== -16 || !v.statement.payload || toHex(v.statement.payload) !== answerSha256)
      return { ...base, ok: false, error: 'payload_mismatch', detail: "the statement is not about this bundle's answer" };
    return { ...base, ok: true, logRecognized: !unknownLogs };
  };
}
