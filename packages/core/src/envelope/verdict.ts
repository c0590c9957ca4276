// What checking an envelope says: one closed union of reasons, a verdict per signature, and the
// payload only when every signature holds.
import type { Static } from 'typebox';
import type * as S from '../schemas/verdicts.js';

/**
 * Why an envelope or one of its signatures failed.
 *
 * | code              | when                                                                   |
 * | ----------------- | ---------------------------------------------------------------------- |
 * | `malformed`       | not the serialization (JSON or CBOR), a non-canonical encoding, a key-carrying header |
 * | `too_large`       | past the body limit                                                    |
 * | `unsupported_alg` | an algorithm outside the accepted set (`none` included)                |
 * | `crit`            | a `crit` or `b64` parameter: no extension is understood here            |
 * | `wrong_typ`       | `typ` is not the media type of the kind expected                       |
 * | `unknown_key`     | no trusted key with that `kid` and `alg`                               |
 * | `bad_signature`   | the signature does not verify                                          |
 * | `payload_mismatch`| the envelope signs other bytes than the receipt it travels with        |
 *
 * @example
 * ```ts
 * function retry(code: EnvelopeErrorCode): boolean {
 *   return code === 'unknown_key'; // perhaps the key set is stale
 * }
 * ```
 */
export type EnvelopeErrorCode = Static<typeof S.EnvelopeError>;

/**
 * One signature of an envelope: its algorithm, its key id, and whether it verified.
 *
 * @example
 * ```ts
 * const s: SignatureVerdict = { alg: 'ML-DSA-87', kid: 'tRn1...', ok: true };
 * ```
 */
export interface SignatureVerdict {
  alg: string;
  /** JOSE: the header's kid; COSE: its hex. */
  kid: string;
  ok: boolean;
  error?: EnvelopeErrorCode;
  /** The `typ` its protected header names, as signed: the kind the signer meant. */
  typ?: string;
  /** Set by checkers that know which keys are pinned (a bundle's envelopes): false for a key nobody pinned. */
  keyRecognized?: boolean;
}

/**
 * The verdict on one envelope. `payload` is set only when `ok`.
 *
 * @example
 * ```ts
 * const v: EnvelopeVerdict = verifyJws(jws, jwks, { typ: 'vnd.svc.answer-receipt+json' });
 * if (!v.ok) console.log(v.error, v.detail);
 * ```
 */
export interface EnvelopeVerdict {
  ok: boolean;
  error?: EnvelopeErrorCode;
  detail?: string;
  payload?: Uint8Array;
  signatures: SignatureVerdict[];
}
