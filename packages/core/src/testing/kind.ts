// A verify answer read as the kind a test expects. `VerifyResponse` is a union on `kind`, so a
// test that knows what it sent would otherwise cast the verdict to reach its members; this checks
// the kind instead, and a wrong one fails the test with the kind it got.
import type { KindVerdicts, VerifyResponse } from '../dispatch.js';
import type { KindEntry } from '../kinds.js';
import { namesFor } from '../names.js';

/**
 * The member of `VerifyResponse` for kind `K` (its `verdict` and, for a record, its `record`).
 *
 * @example
 * ```ts
 * const res: ResponseOf<'record'> = asKind(await verifyBundle(record), 'record');
 * res.record.summaryOk; // true
 * ```
 */
export type ResponseOf<K extends keyof KindVerdicts> = Extract<
  VerifyResponse,
  { kind: `${string}-${Extract<KindEntry, { kind: K }>['suffix']}` }
>;

/**
 * `res` as the answer for kind `kind`, typed; throws a TypeError naming the kind `res` has when it
 * is another. For tests and harnesses that know what they verified.
 *
 * @example
 * ```ts
 * const res = await verifyBundle(proof, { trustedKeys });
 * asKind(res, 'proof').verdict.receipt.questionBinding; // 'entire-input', typed
 * asKind(await verifyBundle(record, { trustedKeys }), 'record').record.summaryOk; // true
 * ```
 */
export function asKind<K extends keyof KindVerdicts>(res: VerifyResponse, kind: K): ResponseOf<K> {
  const want = namesFor(res.service).kinds[kind];
  if (res.kind !== want) throw new TypeError(`expected a ${want} answer, got ${res.kind}`);
  return res as ResponseOf<K>;
}
