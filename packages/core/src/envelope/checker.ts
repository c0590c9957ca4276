// The shapes the main entry knows of envelopes, apart from their code: the verify path takes a
// checker and the issuing path a maker (both from @svc/core/envelope), so neither imports JOSE,
// CBOR or Ed25519 itself.
import type { Static } from 'typebox';
import type { JsonObject } from '../lib/json.js';
import type { Names } from '../names.js';
import type { KeyPair, RandomSource, SyncVerify } from '../crypto/algorithms.js';
import type { CryptoBackend } from '../crypto/backend.js';
import type * as S from '../schemas/verdicts.js';

/**
 * Checks a receipt's envelopes against the keys its bundle verified with (`envelopeChecker`).
 *
 * @example
 * ```ts
 * const res = await verifyBundle(bundle, { trustedKeys, envelopes: envelopeChecker });
 * ```
 */
export type EnvelopeChecker = (
  receipt: JsonObject,
  context: string,
  names: Names,
  keys: { 'ML-DSA-87'?: Uint8Array; Ed25519?: Uint8Array },
  compute?: SyncVerify,
  /** Which of `keys` the verifier pinned: each signature's `keyRecognized`. */
  recognized?: { 'ML-DSA-87'?: boolean; Ed25519?: boolean },
) => Static<typeof S.EnvelopesVerdict>;

/**
 * Checks the SCITT Transparent Statement a proof bundle carries (`scittChecker` from
 * `@svc/core/scitt`): signed with the bundle's receipt key, about its answer, with receipts from a
 * trusted log.
 *
 * @example
 * ```ts
 * const res = await verifyBundle(bundle, { trustedKeys, scitt: scittChecker({ logs: [{ keys: scittKeys }] }) });
 * ```
 */
export type ScittBundleChecker = (
  transparent: unknown,
  answerSha256: string | null,
  receiptKey: Uint8Array | null,
  compute?: SyncVerify,
) => Static<typeof S.ScittVerdict>;

/**
 * The receipt kinds that carry envelopes, each with its own media type.
 *
 * @example
 * ```ts
 * const kind: ReceiptKind = 'answer';
 * ```
 */
export type ReceiptKind = 'answer' | 'run' | 'export' | 'tree-head';

/**
 * The envelope formats an issuer can add.
 *
 * @example
 * ```ts
 * const formats: EnvelopeFormat[] = ['jws', 'cose'];
 * ```
 */
export type EnvelopeFormat = 'jws' | 'cose';

/**
 * The `envelopes` member of a receipt: a JWS (general JSON serialization) and COSE_Sign1s
 * (base64url, one per signing key: ML-DSA-87 first).
 *
 * @example
 * ```ts
 * const e = bundle.receipt.envelopes as ReceiptEnvelopes;
 * ```
 */
export interface ReceiptEnvelopes {
  jws?: { payload: string; signatures: { protected: string; signature: string }[] };
  cose?: string[];
}

/**
 * Adds envelopes to a receipt as it is signed (`envelopeMaker(...)` of @svc/core/envelope); its
 * `ed25519PublicKey`, when it signs with Ed25519 too, goes into the bundle's key object.
 *
 * @example
 * ```ts
 * const bundle = issueProof(input, { receipt: K.answer, envelopes: envelopeMaker({ formats: ['jws', 'cose'] }) });
 * ```
 */
export interface EnvelopeMaker {
  (receipt: JsonObject, context: string, names: Names, key: KeyPair, random?: RandomSource, crypto?: CryptoBackend): ReceiptEnvelopes;
  readonly ed25519PublicKey?: Uint8Array;
}
