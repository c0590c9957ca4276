// The node:crypto backend (OpenSSL 3.5 on Node >= 24): ML-DSA-87 and SLH-DSA-SHA2-256f verify and
// sign natively, about 13x faster than noble for ML-DSA-87 and 8x for SLH-DSA. It is used only when
// a known-answer check passes at start: a noble signature must verify natively, a native one under
// noble, and a wrong context must fail. Elsewhere (Node 20) the core's noble path serves.
import {
  type KeyObject,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  sign as nodeSign,
  verify as nodeVerify,
} from 'node:crypto';
import { checkSignature, formatCheckpoint, signedMessage, type RawVerify, type SignatureType } from '@svc/core/tlog';
import type { BackendAlgorithm, CryptoBackend } from '@svc/core';
import { ML_DSA_87, SLH_DSA_SHA2_256F, keygen, sign, verifyMlDsa87, verifySlhDsa, type KeyPair } from '@svc/core/primitives';

const TYPE: Record<BackendAlgorithm, string> = { [ML_DSA_87]: 'ml-dsa-87', [SLH_DSA_SHA2_256F]: 'slh-dsa-sha2-256f' };

// PKCS#8 for an expanded ML-DSA-87 secret key (the `expandedKey` choice of
// draft-ietf-lamps-dilithium-certificates): the keyring stores noble's 4,896-byte expanded form.
const ML_DSA_87_PKCS8_PREFIX = Uint8Array.from(Buffer.from('30821338020100300b0609608648016503040313048213240482' + '1320', 'hex'));

const ML_DSA_44_PKCS8_PREFIX = Buffer.from('30820a18020100300b0609608648016503040311' + '04820a04' + '04820a00', 'hex');

function privateKeyOf(alg: BackendAlgorithm, secretKey: Uint8Array): KeyObject {
  if (alg === ML_DSA_87) {
    const der = new Uint8Array(ML_DSA_87_PKCS8_PREFIX.length + secretKey.length);
    der.set(ML_DSA_87_PKCS8_PREFIX);
    der.set(secretKey, ML_DSA_87_PKCS8_PREFIX.length);
    return createPrivateKey({ key: Buffer.from(der.buffer, der.byteOffset, der.length), format: 'der', type: 'pkcs8' });
  }
  return createPrivateKey({ key: Buffer.from(secretKey), format: 'raw-private', asymmetricKeyType: TYPE[alg] } as never);
}

function build(): CryptoBackend {
  // The core hands the same array for the same key, so imported keys are reused per array.
  const publics = new WeakMap<Uint8Array, KeyObject>();
  const privates = new WeakMap<Uint8Array, KeyObject>();
  const pub = (alg: BackendAlgorithm, pk: Uint8Array) => {
    const hit = publics.get(pk);
    if (hit) return hit;
    const k = createPublicKey({ key: Buffer.from(pk), format: 'raw-public', asymmetricKeyType: TYPE[alg] } as never);
    publics.set(pk, k);
    return k;
  };
  const priv = (alg: BackendAlgorithm, key: KeyPair) => {
    const hit = privates.get(key.secretKey);
    if (hit) return hit;
    const k = privateKeyOf(alg, key.secretKey);
    privates.set(key.secretKey, k);
    return k;
  };
  return {
    name: 'node:crypto',
    algorithms: [ML_DSA_87, SLH_DSA_SHA2_256F],
    sync: true,
    verify: (alg, pk, msg, sig, context) => nodeVerify(null, msg, { key: pub(alg, pk), context } as never, sig) === true,
    // OpenSSL always hedges: signatures differ run to run and verify under every backend.
    sign: (alg, key, msg, context) => new Uint8Array(nodeSign(null, msg, { key: priv(alg, key), context } as never)),
  };
}

/**
 * The node:crypto backend when this runtime has it and it agrees with noble; else null.
 *
 * @example
 * ```ts
 * import { verifyBundle } from '@svc/core';
 * const native = nodeCryptoBackend(); // null before Node 24
 * const res = await verifyBundle(bundle, { crypto: native ?? undefined });
 * ```
 */
export function nodeCryptoBackend(): CryptoBackend | null {
  try {
    // A runtime without ML-DSA throws here at once (about 1 ms), before the known-answer checks
    // make a noble key (about 30 ms of CPU in every process and worker thread on Node 20).
    generateKeyPairSync('ml-dsa-87' as never);
    const b = build();
    const msg = new Uint8Array([0x73, 0x76, 0x63]);
    const ctx = new Uint8Array([1]);
    for (const alg of [ML_DSA_87, SLH_DSA_SHA2_256F] as const) {
      const kp = keygen(alg, new Uint8Array(alg === ML_DSA_87 ? 32 : 96).fill(0x5a));
      const native = b.sign!(alg, kp, msg, ctx) as Uint8Array;
      // Native signatures verify under noble, natively, and not under another context.
      if (!(alg === ML_DSA_87 ? verifyMlDsa87 : verifySlhDsa)(kp.publicKey, msg, native, ctx)) return null;
      if (b.verify(alg, kp.publicKey, msg, native, ctx) !== true) return null;
      if (b.verify(alg, kp.publicKey, msg, native, new Uint8Array([2])) !== false) return null;
      // noble's ML-DSA signatures verify natively (noble SLH signing is too slow for a start-up check).
      if (alg === ML_DSA_87 && b.verify(alg, kp.publicKey, msg, sign(kp, msg, ctx), ctx) !== true) return null;
    }
    return b;
  } catch {
    return null;
  }
}

let cached: CryptoBackend | null | undefined;

/**
 * This process's native backend, detected once (null where the runtime has none).
 *
 * @example
 * ```ts
 * const crypto = nativeCrypto(); // node:crypto where it has ML-DSA-87, else null
 * ```
 */
export function nativeCrypto(): CryptoBackend | null {
  if (cached === undefined) cached = nodeCryptoBackend();
  return cached;
}

/** Which implementation computes each algorithm, for the start-up log and the CBOM. */
export function backendReport(b: CryptoBackend | null): Record<string, string> {
  const of = (alg: BackendAlgorithm) => (b?.algorithms.includes(alg) ? b.name : 'noble');
  return { [ML_DSA_87]: of(ML_DSA_87), [SLH_DSA_SHA2_256F]: of(SLH_DSA_SHA2_256F), 'Falcon-1024': 'noble' };
}

/**
 * ML-DSA-44 signing by OpenSSL for a witness's cosignatures (about a hundred times noble's speed),
 * when this runtime has it and its signatures verify under noble; null otherwise. Hedged: fine for
 * cosignatures, which need not repeat (checkpoints keep noble's deterministic signing).
 */
export function nativeMlDsa44(secretKey: Uint8Array, publicKey: Uint8Array): ((msg: Uint8Array) => Uint8Array) | null {
  try {
    // The same PKCS#8 expandedKey form as ML-DSA-87's, for noble's 2,560-byte ML-DSA-44 secret key.
    const der = Buffer.concat([ML_DSA_44_PKCS8_PREFIX, Buffer.from(secretKey)]);
    const key = createPrivateKey({ key: der, format: 'der', type: 'pkcs8' });
    const text = formatCheckpoint({ origin: 'probe.invalid/log', size: 1, root: new Uint8Array(32), extensions: [] });
    const sig = new Uint8Array(nodeSign(null, signedMessage('subtree/v1', 'probe', text, 1), key));
    const timestamped = new Uint8Array(8 + sig.length);
    timestamped[7] = 1;
    timestamped.set(sig, 8);
    if (!checkSignature('subtree/v1', 'probe', publicKey, text, timestamped).ok) return null;
    return (msg) => new Uint8Array(nodeSign(null, msg, key));
  } catch {
    return null;
  }
}

const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

/**
 * OpenSSL verification for a note key (Ed25519 in every Node; ML-DSA-44 on Node >= 24), checked
 * against the core's own answer on a signature it makes; undefined where not available. A witness
 * verifies a log signature per request, and noble's Ed25519 is about thirty times slower.
 */
export function nativeNoteVerify(type: SignatureType, publicKey: Uint8Array): RawVerify | undefined {
  try {
    let key: KeyObject;
    if (type === 'ed25519' || type === 'cosignature/v1')
      key = createPublicKey({ key: Buffer.concat([ED25519_SPKI_PREFIX, publicKey]), format: 'der', type: 'spki' });
    else if (type === 'subtree/v1')
      key = createPublicKey({ key: Buffer.from(publicKey), format: 'raw-public', asymmetricKeyType: 'ml-dsa-44' } as never);
    else return undefined;
    const raw: RawVerify = (msg, sig) => nodeVerify(null, msg, key, sig) === true;
    // A wrong signature must fail natively as it does in the core.
    if (raw(new Uint8Array([1]), new Uint8Array(type === 'subtree/v1' ? 2420 : 64))) return undefined;
    return raw;
  } catch {
    return undefined;
  }
}

/** OpenSSL Ed25519 signing from the 32-byte seed the keyring keeps (RFC 8032: deterministic, the same bytes as noble). */
export function nativeEd25519Sign(seed: Uint8Array): ((msg: Uint8Array) => Uint8Array) | null {
  try {
    const key = createPrivateKey({ key: Buffer.concat([ED25519_PKCS8_PREFIX, seed]), format: 'der', type: 'pkcs8' });
    return (msg) => new Uint8Array(nodeSign(null, msg, key));
  } catch {
    return null;
  }
}
