// Defensive wrappers around the primitives. The verifier faces hostile input, so every check here
// validates lengths and types first and turns any throw from the library into `false`.
import { ml_dsa87 } from '@noble/post-quantum/ml-dsa.js';
import { slh_dsa_sha2_256f } from '@noble/post-quantum/slh-dsa.js';
import { backendFor, nobleBackend, type BackendAlgorithm, type CryptoBackend } from './backend.js';
import { falcon1024 } from '@noble/post-quantum/falcon.js';
import { concatBytes, utf8 } from '../encoding/bytes.js';

import { FALCON_1024, ML_DSA_87, SLH_DSA_SHA2_256F, type AlgorithmName, type KeyPair } from './ids.js';

export { FALCON_1024, ML_DSA_87, SLH_DSA_SHA2_256F, type AlgorithmName };

/**
 * Public key and signature lengths in bytes of each algorithm, checked before any backend is called.
 *
 * @example
 * ```ts
 * if (signature.length !== LENGTHS[ML_DSA_87].signatureMin) throw new Error('not an ML-DSA-87 signature');
 * ```
 */
export const LENGTHS = {
  [ML_DSA_87]: { publicKey: 2592, secretKey: 4896, signatureMin: 4627, signatureMax: 4627, seed: 32 },
  [SLH_DSA_SHA2_256F]: { publicKey: 64, secretKey: 128, signatureMin: 49856, signatureMax: 49856, seed: 96 },
  // Round-3 Falcon compressed signatures vary in length; 1462 is the format's maximum.
  [FALCON_1024]: { publicKey: 1793, secretKey: 2305, signatureMin: 42, signatureMax: 1462, seed: 48 },
} as const;

/**
 * A source of random bytes the caller hands in; the core never reaches for one itself.
 *
 * @example
 * ```ts
 * const random: RandomSource = (n) => crypto.getRandomValues(new Uint8Array(n));
 * const sig = sign(key, utf8('message'), 'svc-provenance-v1', random); // hedged signing
 * ```
 */
export type RandomSource = (byteLength: number) => Uint8Array;

function isBytes(x: unknown): x is Uint8Array {
  return x instanceof Uint8Array;
}

/**
 * A signature's context string (FIPS 204/205 `ctx`, at most 255 bytes): UTF-8 text on the wire;
 * raw bytes are accepted for standard test vectors.
 *
 * @example
 * ```ts
 * const context: SignatureContext = namesFor('svc').contexts.answer; // 'svc-provenance-v1'
 * verifyMlDsa87(publicKey, message, signature, context);
 * ```
 */
export type SignatureContext = string | Uint8Array;

function contextBytes(context: SignatureContext): Uint8Array | null {
  const c = typeof context === 'string' ? utf8(context) : context instanceof Uint8Array ? context : null;
  return c && c.length <= 255 ? c : null;
}

function shapeOk(alg: AlgorithmName, pk: unknown, sig: unknown, msg: unknown): boolean {
  const l = LENGTHS[alg];
  return (
    isBytes(pk) && isBytes(sig) && isBytes(msg) && pk.length === l.publicKey && sig.length >= l.signatureMin && sig.length <= l.signatureMax
  );
}

/**
 * One signature check computed synchronously, already past the shape checks. The verify path is
 * written against this, so a backend (or a batch of checks answered later) can stand behind it.
 *
 * @example
 * ```ts
 * const compute: SyncVerify = syncVerifier(nobleBackend);
 * verifyMlDsa87(publicKey, message, signature, 'svc-provenance-v1', compute);
 * ```
 */
export type SyncVerify = (
  alg: BackendAlgorithm,
  publicKey: Uint8Array,
  message: Uint8Array,
  signature: Uint8Array,
  context: Uint8Array,
) => boolean;

/**
 * A SyncVerify over a synchronous backend, falling back to noble for what it does not compute.
 *
 * @example
 * ```ts
 * const compute = syncVerifier(); // noble
 * const ok = verifyMlDsa87(publicKey, message, signature, 'svc-provenance-v1', compute);
 * ```
 */
export function syncVerifier(backend?: CryptoBackend): SyncVerify {
  if (backend && !backend.sync) throw new TypeError(`the ${backend.name} backend is asynchronous; use verifyBundle`);
  return (alg, pk, msg, sig, ctx) => backendFor(backend, alg).verify(alg, pk, msg, sig, ctx) === true;
}

const nobleVerify = syncVerifier();

function checked(
  alg: BackendAlgorithm,
  publicKey: Uint8Array,
  message: Uint8Array,
  signature: Uint8Array,
  context: SignatureContext,
  compute: SyncVerify,
): boolean {
  const ctx = contextBytes(context);
  if (!ctx || !shapeOk(alg, publicKey, signature, message)) return false;
  try {
    return compute(alg, publicKey, message, signature, ctx) === true;
  } catch {
    return false;
  }
}

/**
 * FIPS 204 pure-mode ML-DSA-87 verification with ctx = UTF-8(context).
 *
 * @example
 * ```ts
 * const ok = verifyMlDsa87(publicKey, receiptMessage(receipt)!, fromHex(receipt.sig)!, 'svc-provenance-v1');
 * ```
 */
export function verifyMlDsa87(
  publicKey: Uint8Array,
  message: Uint8Array,
  signature: Uint8Array,
  context: SignatureContext,
  compute: SyncVerify = nobleVerify,
): boolean {
  return checked(ML_DSA_87, publicKey, message, signature, context, compute);
}

/**
 * FIPS 205 pure-mode SLH-DSA-SHA2-256f verification with ctx = UTF-8(context).
 *
 * @example
 * ```ts
 * const ok = verifySlhDsa(slhPublicKey, message, signature, 'svc-provenance-v1');
 * ```
 */
export function verifySlhDsa(
  publicKey: Uint8Array,
  message: Uint8Array,
  signature: Uint8Array,
  context: SignatureContext,
  compute: SyncVerify = nobleVerify,
): boolean {
  return checked(SLH_DSA_SHA2_256F, publicKey, message, signature, context, compute);
}

/**
 * Round-3 Falcon has no context input, so the message is prefixed the way FIPS 204 builds its own
 * domain separation: 0x00 || len(ctx) || ctx || message (wire-format s.2).
 *
 * @example
 * ```ts
 * const m = falconMessage(utf8('hello'), 'svc-bridge-v1'); // 0x00 || len(ctx) || ctx || message
 * ```
 */
export function falconMessage(message: Uint8Array, context: SignatureContext): Uint8Array | null {
  const ctx = contextBytes(context);
  if (!ctx) return null;
  return concatBytes(new Uint8Array([0, ctx.length]), ctx, message);
}

/**
 * Falcon-1024 verification of `message` under `context` (prefixed as falconMessage does); false on any malformed input, never a throw.
 *
 * @example
 * ```ts
 * const ok = verifyFalcon1024(cosignKey.publicKey, utf8(payload), signature, 'svc-bridge-v1');
 * ```
 */
export function verifyFalcon1024(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array, context: SignatureContext): boolean {
  if (!shapeOk(FALCON_1024, publicKey, signature, message)) return false;
  const m = falconMessage(message, context);
  if (!m) return false;
  try {
    return falcon1024.verify(signature, m, publicKey) === true;
  } catch {
    return false;
  }
}

/**
 * Verify a signature by algorithm name: ML-DSA-87 and SLH-DSA through `compute`, Falcon-1024 through noble. False on any malformed input.
 *
 * @example
 * ```ts
 * const ok = verifyWith(ML_DSA_87, publicKey, message, signature, 'svc-provenance-v1');
 * ```
 */
export function verifyWith(
  alg: AlgorithmName,
  publicKey: Uint8Array,
  message: Uint8Array,
  signature: Uint8Array,
  context: SignatureContext,
  compute: SyncVerify = nobleVerify,
): boolean {
  switch (alg) {
    case ML_DSA_87:
      return verifyMlDsa87(publicKey, message, signature, context, compute);
    case SLH_DSA_SHA2_256F:
      return verifySlhDsa(publicKey, message, signature, context, compute);
    case FALCON_1024:
      return verifyFalcon1024(publicKey, message, signature, context);
  }
}

// ---- issuing side -------------------------------------------------------------------------

export type { KeyPair } from './ids.js';

/**
 * Deterministic key generation from a seed (32 bytes ML-DSA, 96 SLH-DSA, 48 Falcon).
 *
 * @example
 * ```ts
 * const seed = crypto.getRandomValues(new Uint8Array(32)); // the core takes randomness, never fetches it
 * const key = keygen(ML_DSA_87, seed);
 * ```
 */
export function keygen(alg: AlgorithmName, seed: Uint8Array): KeyPair {
  const want = LENGTHS[alg].seed;
  if (!isBytes(seed) || seed.length !== want) throw new TypeError(`${alg} keygen needs a ${want}-byte seed`);
  const kp =
    alg === ML_DSA_87 ? ml_dsa87.keygen(seed) : alg === SLH_DSA_SHA2_256F ? slh_dsa_sha2_256f.keygen(seed) : falcon1024.keygen(seed);
  return { alg, publicKey: kp.publicKey, secretKey: kp.secretKey };
}

/**
 * Sign under a context. ML-DSA and SLH-DSA sign deterministically with noble unless `random` is
 * handed in (hedged mode); a native `backend` may hedge always. Falcon needs randomness by
 * construction, so it requires `random`.
 *
 * @example
 * ```ts
 * const sig = sign(key, utf8('message'), 'svc-provenance-v1');
 * verifyMlDsa87(key.publicKey, utf8('message'), sig, 'svc-provenance-v1'); // true
 * ```
 */
export function sign(
  key: KeyPair,
  message: Uint8Array,
  context: SignatureContext,
  random?: RandomSource,
  backend?: CryptoBackend,
): Uint8Array {
  const ctx = contextBytes(context);
  if (!ctx) throw new TypeError('context longer than 255 bytes');
  switch (key.alg) {
    case ML_DSA_87:
    case SLH_DSA_SHA2_256F: {
      const b = backendFor(backend, key.alg);
      const sig = (b.sign ?? nobleBackend.sign!)(key.alg, key, message, ctx, random ? random(32) : undefined);
      if (!(sig instanceof Uint8Array)) throw new TypeError(`the ${b.name} backend cannot sign synchronously`);
      return sig;
    }
    case FALCON_1024: {
      if (!random) throw new TypeError('Falcon-1024 signing needs a random source');
      // The exported Signer type omits Falcon's `random` option, which the implementation honours.
      const opts = { random: (n?: number) => random(n ?? 48) } as unknown as Parameters<typeof falcon1024.sign>[2];
      return falcon1024.sign(falconMessage(message, context)!, key.secretKey, opts);
    }
  }
}
