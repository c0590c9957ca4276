// Public keys in the standard sets: JWK (RFC 7517) and COSE_Key (RFC 9052), with their
// thumbprints as key ids. ML-DSA keys are the Algorithm Key Pair type of RFC 9964 (JOSE `AKP`,
// COSE kty 7, the raw FIPS 204 public key in `pub`); Ed25519 keys are OKP (RFC 8037, RFC 9053).
import { toBase64Url, fromBase64Url, utf8 } from '../encoding/bytes.js';
import { sha256 } from '../encoding/hash.js';
import { cborDecode, cborEncode } from './cbor.js';

/**
 * The envelope algorithms: their JOSE names and COSE labels (RFC 9964, RFC 9864 fully specified Ed25519).
 *
 * @example
 * ```ts
 * ENVELOPE_ALGS['ML-DSA-87'].cose; // -50
 * ```
 */
export const ENVELOPE_ALGS = {
  'ML-DSA-44': { cose: -48, publicKeyLength: 1312, signatureLength: 2420 },
  'ML-DSA-65': { cose: -49, publicKeyLength: 1952, signatureLength: 3309 },
  'ML-DSA-87': { cose: -50, publicKeyLength: 2592, signatureLength: 4627 },
  Ed25519: { cose: -19, publicKeyLength: 32, signatureLength: 64 },
} as const;

/**
 * An envelope algorithm's JOSE name.
 *
 * @example
 * ```ts
 * const alg: EnvelopeAlg = 'ML-DSA-87';
 * ```
 */
export type EnvelopeAlg = keyof typeof ENVELOPE_ALGS;

/**
 * The algorithm a COSE label names, if it is one of ours.
 *
 * @example
 * ```ts
 * algOfCose(-50); // 'ML-DSA-87'
 * ```
 */
export function algOfCose(label: unknown): EnvelopeAlg | undefined {
  return (Object.keys(ENVELOPE_ALGS) as EnvelopeAlg[]).find((a) => ENVELOPE_ALGS[a].cose === label);
}

/**
 * A public key as JWK: AKP for ML-DSA, OKP for Ed25519; `kid` is its RFC 7638 thumbprint.
 *
 * @example
 * ```ts
 * const jwk: PublicJwk = { kty: 'AKP', alg: 'ML-DSA-87', pub: '...', kid: '...' };
 * ```
 */
export type PublicJwk =
  | { kty: 'AKP'; alg: Exclude<EnvelopeAlg, 'Ed25519'>; pub: string; kid: string; use?: 'sig' }
  | { kty: 'OKP'; crv: 'Ed25519'; alg: 'Ed25519'; x: string; kid: string; use?: 'sig' };

/**
 * A JWK Set (RFC 7517 s.5).
 *
 * @example
 * ```ts
 * const jwks: Jwks = { keys: [publicJwk('ML-DSA-87', key.publicKey)] };
 * ```
 */
export interface Jwks {
  keys: PublicJwk[];
}

/**
 * RFC 7638 thumbprint (SHA-256, base64url) over a key's required members in lexicographic order:
 * `alg`, `kty`, `pub` for AKP (RFC 9964 s.6); `crv`, `kty`, `x` for OKP (RFC 8037 s.2).
 *
 * @example
 * ```ts
 * const kid = jwkThumbprint('ML-DSA-87', publicKey);
 * ```
 */
export function jwkThumbprint(alg: EnvelopeAlg, publicKey: Uint8Array): string {
  // The members are fixed ASCII names and base64url values: the JSON needs no escaping.
  const json =
    alg === 'Ed25519'
      ? `{"crv":"Ed25519","kty":"OKP","x":"${toBase64Url(publicKey)}"}`
      : `{"alg":"${alg}","kty":"AKP","pub":"${toBase64Url(publicKey)}"}`;
  return toBase64Url(sha256(utf8(json)));
}

/**
 * The public JWK of a key, with its thumbprint as `kid` and `use: "sig"`.
 *
 * @example
 * ```ts
 * const jwks: Jwks = { keys: [publicJwk('ML-DSA-87', answerKey.publicKey)] };
 * ```
 */
export function publicJwk(alg: EnvelopeAlg, publicKey: Uint8Array): PublicJwk {
  const kid = jwkThumbprint(alg, publicKey);
  return alg === 'Ed25519'
    ? { kty: 'OKP', crv: 'Ed25519', alg, x: toBase64Url(publicKey), kid, use: 'sig' }
    : { kty: 'AKP', alg, pub: toBase64Url(publicKey), kid, use: 'sig' };
}

/**
 * A JWK's algorithm and raw public key when it is one this library reads (never a private key), else null.
 *
 * @example
 * ```ts
 * const k = readJwk(jwks.keys[0]); // { alg: 'ML-DSA-87', publicKey, kid }
 * ```
 */
export function readJwk(jwk: unknown): { alg: EnvelopeAlg; publicKey: Uint8Array; kid?: string } | null {
  if (typeof jwk !== 'object' || jwk === null) return null;
  const k = jwk as Record<string, unknown>;
  const kid = typeof k.kid === 'string' ? { kid: k.kid } : {};
  if (k.kty === 'AKP' && typeof k.alg === 'string' && k.alg in ENVELOPE_ALGS && k.alg !== 'Ed25519' && !('priv' in k)) {
    const alg = k.alg as EnvelopeAlg;
    const publicKey = fromBase64Url(k.pub);
    return publicKey && publicKey.length === ENVELOPE_ALGS[alg].publicKeyLength ? { alg, publicKey, ...kid } : null;
  }
  if (k.kty === 'OKP' && k.crv === 'Ed25519' && (k.alg === undefined || k.alg === 'Ed25519' || k.alg === 'EdDSA') && !('d' in k)) {
    const publicKey = fromBase64Url(k.x);
    return publicKey && publicKey.length === 32 ? { alg: 'Ed25519', publicKey, ...kid } : null;
  }
  return null;
}

// COSE key labels (RFC 9052 s.7, RFC 9053 s.7.2, RFC 9964 s.3).
const KTY = 1;
const KID = 2;
const ALG = 3;
const KTY_OKP = 1;
const KTY_AKP = 7;
const OKP_CRV = -1;
const OKP_X = -2;
const CRV_ED25519 = 6;
const AKP_PUB = -1;

/** The members RFC 9679 hashes, for the thumbprint and the key alike. */
function coseKeyCore(alg: EnvelopeAlg, publicKey: Uint8Array): Map<number, number | Uint8Array> {
  return alg === 'Ed25519'
    ? new Map<number, number | Uint8Array>([
        [KTY, KTY_OKP],
        [OKP_CRV, CRV_ED25519],
        [OKP_X, publicKey],
      ])
    : new Map<number, number | Uint8Array>([
        [KTY, KTY_AKP],
        [ALG, ENVELOPE_ALGS[alg].cose],
        [AKP_PUB, publicKey],
      ]);
}

/**
 * RFC 9679 COSE Key Thumbprint (SHA-256): the deterministic CBOR of the required members, hashed.
 * For AKP: kty, alg, pub (RFC 9964 s.6); for OKP: kty, crv, x.
 *
 * @example
 * ```ts
 * const kid = coseKeyThumbprint('ML-DSA-87', publicKey); // 32 bytes, the COSE kid of our envelopes
 * ```
 */
export function coseKeyThumbprint(alg: EnvelopeAlg, publicKey: Uint8Array): Uint8Array {
  return sha256(cborEncode(coseKeyCore(alg, publicKey)));
}

/**
 * The COSE_Key of a public key, with `alg` and its thumbprint as `kid`, deterministically encoded
 * as one item of a COSE_KeySet.
 *
 * @example
 * ```ts
 * const set = coseKeySet([coseKey('ML-DSA-87', key.publicKey)]);
 * ```
 */
export function coseKey(alg: EnvelopeAlg, publicKey: Uint8Array): Map<number, number | Uint8Array> {
  const m = coseKeyCore(alg, publicKey);
  m.set(KID, coseKeyThumbprint(alg, publicKey));
  m.set(ALG, ENVELOPE_ALGS[alg].cose);
  return m;
}

/**
 * A COSE_KeySet (RFC 9052 s.7): the CBOR array of the keys.
 *
 * @example
 * ```ts
 * const bytes = coseKeySet([coseKey('ML-DSA-87', pk), coseKey('Ed25519', edPk)]); // application/cose-key-set
 * ```
 */
export function coseKeySet(keys: Map<number, number | Uint8Array>[]): Uint8Array {
  return cborEncode(keys);
}

/**
 * A COSE_Key's algorithm and raw public key when it is one this library reads (never a private key), else null.
 *
 * @example
 * ```ts
 * const k = readCoseKey(readCoseKeySet(bytes)[0]); // { alg: 'ML-DSA-87', publicKey, kid }
 * ```
 */
export function readCoseKey(key: unknown): { alg: EnvelopeAlg; publicKey: Uint8Array; kid?: Uint8Array } | null {
  if (!(key instanceof Map)) return null;
  const kid = key.get(KID) instanceof Uint8Array ? { kid: key.get(KID) as Uint8Array } : {};
  if (key.get(KTY) === KTY_AKP) {
    const alg = algOfCose(key.get(ALG));
    const pub = key.get(AKP_PUB);
    if (!alg || alg === 'Ed25519' || !(pub instanceof Uint8Array) || pub.length !== ENVELOPE_ALGS[alg].publicKeyLength || key.has(-2))
      return null;
    return { alg, publicKey: pub, ...kid };
  }
  if (key.get(KTY) === KTY_OKP && key.get(OKP_CRV) === CRV_ED25519) {
    const alg = key.get(ALG);
    const x = key.get(OKP_X);
    if ((alg !== undefined && alg !== -19 && alg !== -8) || !(x instanceof Uint8Array) || x.length !== 32 || key.has(-4)) return null;
    return { alg: 'Ed25519', publicKey: x, ...kid };
  }
  return null;
}

/**
 * The keys of a COSE_KeySet (CBOR array of COSE_Key maps); throws CborError or TypeError on
 * anything else. Keys of types this library does not read are kept, and skipped when verifying.
 *
 * @example
 * ```ts
 * const keys = readCoseKeySet(await (await fetch(`${base}/api/provenance/cose-keys`)).bytes());
 * ```
 */
export function readCoseKeySet(bytes: Uint8Array): Map<unknown, unknown>[] {
  const v = cborDecode(bytes);
  if (!Array.isArray(v) || !v.every((k) => k instanceof Map)) throw new TypeError('a COSE_KeySet is an array of maps');
  return v as Map<unknown, unknown>[];
}
