// The log's note keys as COSE signers, so one key signs both a checkpoint line and a receipt. The
// two never sign the same bytes: a note signs text (origin, size, root in base64, one per line),
// a receipt a COSE Sig_structure, which starts 0x84 0x6a "Signature1" and is not UTF-8.
import { ml_dsa44, ml_dsa87 } from '@noble/post-quantum/ml-dsa.js';
import { ed25519Signer, type EnvelopeSigner } from '../envelope/signers.js';
import type { LogKeyPair } from '../tlog/signatures.js';

/**
 * A receipt signer from a log key: ML-DSA-44 (subtree/v1), ML-DSA-87 (mldsa87-subtree) or Ed25519,
 * pure and with the empty context (RFC 9964), deterministic.
 *
 * @example
 * ```ts
 * const signer = logKeySigner(logKeygen('subtree/v1', seed32));
 * ```
 */
export function logKeySigner(key: LogKeyPair): EnvelopeSigner {
  const secret = key.secretKey.slice();
  switch (key.type) {
    case 'ed25519':
      return ed25519Signer(secret);
    case 'subtree/v1':
      return { alg: 'ML-DSA-44', publicKey: key.publicKey, sign: (m) => ml_dsa44.sign(m, secret, { extraEntropy: false }) };
    case 'mldsa87-subtree':
      return { alg: 'ML-DSA-87', publicKey: key.publicKey, sign: (m) => ml_dsa87.sign(m, secret, { extraEntropy: false }) };
    default:
      throw new TypeError(`a ${key.type} key does not sign receipts`);
  }
}
