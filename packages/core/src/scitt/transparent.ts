// Transparent Statements (RFC 9943 s.7): a Signed Statement carrying the logs' receipts in its
// unprotected header (394). The statement's signature does not cover them; each receipt is checked
// against the leaf entry of the statement as registered, so adding or removing receipts never
// changes what they prove.
import { coseBytes, keyArray } from '../envelope/forms.js';
import { toHex } from '../encoding/bytes.js';
import { MAX_BODY_BYTES } from '../limits.js';
import type { SyncVerify } from '../crypto/algorithms.js';
import { cborEncode, CborError, Tagged } from '../envelope/cbor.js';
import { readCose1 } from '../envelope/cose.js';
import type { ClassicalVerify } from './keys.js';
import { verifyReceipt, type ScittLog } from './receipt.js';
import { SCITT_HEADER, statementLeaf, verifyStatement } from './statement.js';
import type { ScittReceiptVerdict, TransparentVerdict } from './verdict.js';

const MAX_RECEIPTS = 8;

/**
 * A Transparent Statement: the statement with `receipts` in its unprotected header (replacing any
 * it had). Throws CborError or TypeError for what is not a COSE_Sign1.
 *
 * @example
 * ```ts
 * const transparent = withReceipts(statement, [mlDsaReceipt, ed25519Receipt]);
 * ```
 */
export function withReceipts(statement: Uint8Array, receipts: readonly Uint8Array[]): Uint8Array {
  const c = readCose1(statement);
  const unprotected = new Map(c.unprotected);
  unprotected.set(SCITT_HEADER.receipts, [...receipts]);
  return cborEncode(new Tagged(18, [c.protectedBytes, unprotected, c.payload, c.signature]));
}

/**
 * The receipts a Transparent Statement carries (394), in order; throws for what is not one.
 *
 * @example
 * ```ts
 * const [receipt] = receiptsOf(transparent);
 * ```
 */
export function receiptsOf(transparent: Uint8Array): Uint8Array[] {
  const r = readCose1(transparent).unprotected.get(SCITT_HEADER.receipts);
  if (r === undefined) return [];
  if (!Array.isArray(r) || !r.every((x) => x instanceof Uint8Array)) throw new TypeError('receipts (394) are an array of byte strings');
  return r as Uint8Array[];
}

/**
 * Options of verifyTransparentStatement: the issuers' keys, the trusted logs, the backend.
 *
 * @example
 * ```ts
 * const opts: TransparentOptions = { issuers: [answerJwk], logs: [{ keys: logKeys }] };
 * ```
 */
export interface TransparentOptions {
  issuers: readonly unknown[];
  logs: readonly ScittLog[];
  compute?: SyncVerify;
  classical?: ClassicalVerify;
}

/**
 * Verify a Transparent Statement: the issuer's signature, and each receipt against the trusted
 * logs. It holds when the statement verifies, at least one receipt verifies, and no receipt of a
 * trusted log fails (a receipt no trusted log's key matches is reported and left aside). Never throws.
 *
 * @example
 * ```ts
 * const v = verifyTransparentStatement(bytes, { issuers: [issuerKey], logs: [{ keys: [logKey] }] });
 * ```
 */
export function verifyTransparentStatement(bytes: unknown, opts: TransparentOptions): TransparentVerdict {
  coseBytes(bytes, 'the Transparent Statement');
  for (const log of opts.logs) keyArray(log.keys, "a log's keys");
  const statement = verifyStatement(bytes, opts.issuers, { compute: opts.compute, classical: opts.classical });
  const fail = (error: TransparentVerdict['error'], detail: string, receipts: ScittReceiptVerdict[] = []): TransparentVerdict => ({
    ok: false,
    error,
    detail,
    statement,
    receipts,
  });
  if (!(bytes instanceof Uint8Array) || bytes.length > MAX_BODY_BYTES || statement.error === 'malformed')
    return fail(statement.error, statement.detail ?? 'not a Transparent Statement');
  let raw: Uint8Array[];
  let leaf: Uint8Array;
  try {
    raw = receiptsOf(bytes);
    leaf = statementLeaf(bytes);
  } catch (e) {
    return fail('malformed', e instanceof CborError || e instanceof TypeError ? e.message : 'not CBOR');
  }
  if (raw.length > MAX_RECEIPTS) return fail('malformed', `more than ${MAX_RECEIPTS} receipts`);
  const receipts = raw.map((r) => {
    // A receipt is judged by the first trusted log whose keys know its signer.
    const verdicts = opts.logs.map((log) => verifyReceipt(r, leaf, log, { compute: opts.compute, classical: opts.classical }));
    const aside = (v: ScittReceiptVerdict) => v.error === 'unknown_key' || v.error === 'unsupported_vds';
    return (
      verdicts.find((v) => v.ok) ??
      verdicts.find((v) => !aside(v)) ??
      verdicts.find((v) => v.error === 'unsupported_vds') ??
      verdicts[0] ??
      unjudged(leaf)
    );
  });
  if (!statement.ok) return fail(statement.error, statement.detail ?? '', receipts);
  const failed = receipts.find((r) => !r.ok && r.error !== 'unknown_key');
  if (failed) return fail(failed.error, `a receipt fails: ${failed.detail}`, receipts);
  if (!receipts.some((r) => r.ok)) return fail('no_receipt', 'no receipt from a trusted log', receipts);
  return { ok: true, statement, receipts };
}

function unjudged(leaf: Uint8Array): ScittReceiptVerdict {
  return { ok: false, error: 'unknown_key', detail: 'no trusted log', leaf: toHex(leaf) };
}
