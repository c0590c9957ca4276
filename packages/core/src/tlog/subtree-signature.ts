// Subtree cosignatures (tlog-cosignature 1.1): subtree/v1's cosigned_message signed with timestamp
// 0 for a subtree that does not start at 0. Such a signature says the subtree is consistent with
// every view of the log the cosigner has seen, never that it is the newest.
import {
  SIGNATURE_TYPES,
  cosignedMessage,
  readTimestamp,
  signMessage,
  verifyMessage,
  type RawSign,
  type RawVerify,
  type SignatureType,
  type SignedSubtree,
} from './signatures.js';

/**
 * The signature types that can sign a subtree: the subtree/v1 message, ML-DSA-44 or this project's ML-DSA-87.
 *
 * @example
 * ```ts
 * const type: SubtreeSignatureType = 'subtree/v1'; // what a witness's ML-DSA-44 key signs subtrees with
 * ```
 */
export type SubtreeSignatureType = 'subtree/v1' | 'mldsa87-subtree';
export const isSubtreeType = (t: SignatureType): t is SubtreeSignatureType => t === 'subtree/v1' || t === 'mldsa87-subtree';

/**
 * A subtree cosignature: the timestamped signature over the subtree's cosigned_message with
 * timestamp 0, which makes no claim of being the newest tree.
 *
 * @example
 * ```ts
 * const sig = makeSubtreeSignature('subtree/v1', 'witness.example/w1', key.secretKey, { origin, start: 8, end: 13, hash });
 * ```
 */
export function makeSubtreeSignature(
  type: SignatureType,
  name: string,
  secretKey: Uint8Array,
  s: SignedSubtree,
  raw?: RawSign,
): Uint8Array {
  if (!isSubtreeType(type)) throw new RangeError(`a ${type} key cannot sign a subtree`);
  return signMessage(type, secretKey, cosignedMessage(name, 0, s), 0, raw);
}

/**
 * Whether `signature` is a subtree cosignature by this key over `s`. A subtree that does not start
 * at 0 must carry timestamp 0 (tlog-cosignature); one that does is a checkpoint's too, and its
 * timestamp is returned. Never throws.
 *
 * @example
 * ```ts
 * checkSubtreeSignature('subtree/v1', 'witness.example/w1', publicKey, { origin, start: 8, end: 13, hash }, sig).ok; // true
 * ```
 */
export function checkSubtreeSignature(
  type: SignatureType,
  name: string,
  publicKey: Uint8Array,
  s: SignedSubtree,
  signature: Uint8Array,
  raw?: RawVerify,
): { ok: true; timestamp: number } | { ok: false } {
  try {
    const spec = SIGNATURE_TYPES[type];
    if (!isSubtreeType(type) || signature.length !== spec.signatureLength || publicKey.length !== spec.publicKeyLength)
      return { ok: false };
    const t = readTimestamp(signature);
    if (t === null || (s.start !== 0 && t !== 0)) return { ok: false };
    return verifyMessage(type, publicKey, cosignedMessage(name, t, s), signature.subarray(8), raw)
      ? { ok: true, timestamp: t }
      : { ok: false };
  } catch {
    return { ok: false };
  }
}
