// The signatures of the envelopes: pure ML-DSA with the empty context (RFC 9964 s.4: FIPS 204's
// M' = 0 || 0 || M) and Ed25519 (RFC 8032, strict). The native receipt signs with the same ML-DSA-87
// key under a non-empty context, so its M' (0 || len || ctx || JCS) can never equal an envelope's:
// the second byte differs. Each check is wrapped: bad lengths and throws are `false`.
import { ed25519 } from '@noble/curves/ed25519.js';
import { ml_dsa44, ml_dsa65 } from '@noble/post-quantum/ml-dsa.js';
import { ML_DSA_87, sign, verifyMlDsa87, type SyncVerify } from '../crypto/algorithms.js';
import type { CryptoBackend } from '../crypto/backend.js';
import type { KeyPair } from '../crypto/ids.js';
import { ENVELOPE_ALGS, type EnvelopeAlg } from './keys.js';

/**
 * RFC 9964 s.4: JOSE and COSE use pure ML-DSA with the empty context string.
 *
 * @example
 * ```ts
 * verifyMlDsa87(publicKey, signingInput, signature, ENVELOPE_CONTEXT);
 * ```
 */
export const ENVELOPE_CONTEXT = '';

/**
 * A key that signs envelopes: its algorithm, its public key, and its signing function.
 *
 * @example
 * ```ts
 * const signers = [mlDsa87Signer(K.answer), ed25519Signer(seed32)];
 * ```
 */
export interface EnvelopeSigner {
  alg: EnvelopeAlg;
  publicKey: Uint8Array;
  sign(message: Uint8Array): Uint8Array;
}

/**
 * The ML-DSA-87 envelope signer of a receipt key (deterministic unless `random` is given).
 *
 * @example
 * ```ts
 * const s = mlDsa87Signer(K.answer);
 * ```
 */
export function mlDsa87Signer(key: KeyPair, random?: (n: number) => Uint8Array, backend?: CryptoBackend): EnvelopeSigner {
  if (key.alg !== ML_DSA_87) throw new TypeError('an ML-DSA-87 key');
  return { alg: 'ML-DSA-87', publicKey: key.publicKey, sign: (m) => sign(key, m, ENVELOPE_CONTEXT, random, backend) };
}

/**
 * An Ed25519 envelope signer from its 32-byte seed (RFC 8032 private key).
 *
 * @example
 * ```ts
 * const s = ed25519Signer(crypto.getRandomValues(new Uint8Array(32)));
 * ```
 */
export function ed25519Signer(seed: Uint8Array): EnvelopeSigner {
  if (!(seed instanceof Uint8Array) || seed.length !== 32) throw new RangeError('a 32-byte Ed25519 seed');
  const secret = seed.slice();
  return { alg: 'Ed25519', publicKey: ed25519.getPublicKey(secret), sign: (m) => ed25519.sign(m, secret) };
}

/**
 * Check one envelope signature; never throws. ML-DSA-87 goes through `compute` (the verifier's
 * backend: node:crypto, WebCrypto or noble), the others through noble.
 *
 * @example
 * ```ts
 * envelopeVerify('ML-DSA-87', publicKey, signingInput, signature); // true or false
 * ```
 */
export function envelopeVerify(
  alg: EnvelopeAlg,
  publicKey: Uint8Array,
  message: Uint8Array,
  signature: Uint8Array,
  compute?: SyncVerify,
): boolean {
  const spec = ENVELOPE_ALGS[alg];
  if (!spec || publicKey.length !== spec.publicKeyLength || signature.length !== spec.signatureLength) return false;
  try {
    switch (alg) {
      case 'ML-DSA-87':
        return verifyMlDsa87(publicKey, message, signature, ENVELOPE_CONTEXT, compute);
      case 'ML-DSA-65':
        return ml_dsa65.verify(signature, message, publicKey) === true;
      case 'ML-DSA-44':
        return ml_dsa44.verify(signature, message, publicKey) === true;
      case 'Ed25519':
        return ed25519.verify(signature, message, publicKey, { zip215: false }) === true;
    }
  } catch {
    return false;
  }
}
