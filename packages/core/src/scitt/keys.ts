// The keys a SCITT verifier trusts: an issuer's or a log's, as JWK or COSE_Key. Beside the
// envelope algorithms (ML-DSA, Ed25519) SCITT tools sign with ECDSA today (ES256, ES384; the
// scitt-cose vectors and CCF receipts), so these are read for verifying, never for signing here.
import { p256, p384 } from '@noble/curves/nist.js';
import { concatBytes, fromBase64Url, toBase64Url, toHex, utf8 } from '../encoding/bytes.js';
import { sha256 } from '../encoding/hash.js';
import { cborEncode } from '../envelope/cbor.js';
import type { SyncVerify } from '../crypto/algorithms.js';
import { algOfCose, coseKeyThumbprint, ENVELOPE_ALGS, jwkThumbprint, readCoseKey, readJwk, type EnvelopeAlg } from '../envelope/keys.js';
import { envelopeVerify } from '../envelope/signers.js';

/**
 * What a SCITT signature may be made with: the envelope algorithms and ECDSA P-256 / P-384.
 *
 * @example
 * ```ts
 * const alg: ScittAlg = 'ES256';
 * ```
 */
export type ScittAlg = EnvelopeAlg | 'ES256' | 'ES384';

/**
 * A trusted public key: its algorithm, raw public key (SEC1 uncompressed for ECDSA) and, when the
 * key set gave one, its kid.
 *
 * @example
 * ```ts
 * const k: ScittKey = { alg: 'Ed25519', publicKey: pk32 };
 * ```
 */
export interface ScittKey {
  alg: ScittAlg;
  publicKey: Uint8Array;
  kid?: Uint8Array | string;
}

const EC_CURVES = {
  'P-256': { alg: 'ES256', cose: 1, length: 32 },
  'P-384': { alg: 'ES384', cose: 2, length: 48 },
} as const;

/**
 * The algorithm a COSE `alg` label names, for signatures this verifier checks. -8 (EdDSA, the
 * polymorphic name RFC 9864 deprecates but SCITT tools still write) is read as Ed25519.
 *
 * @example
 * ```ts
 * scittAlgOfCose(-8); // 'Ed25519'
 * ```
 */
export function scittAlgOfCose(label: unknown): ScittAlg | undefined {
  if (label === -7) return 'ES256';
  if (label === -35) return 'ES384';
  if (label === -8) return 'Ed25519';
  return algOfCose(label);
}

function ecPoint(x: unknown, y: unknown, length: number): Uint8Array | null {
  if (!(x instanceof Uint8Array) || !(y instanceof Uint8Array) || x.length !== length || y.length !== length) return null;
  return concatBytes(new Uint8Array([4]), x, y);
}

/**
 * A key as this verifier reads it: a ScittKey, a public JWK (AKP, OKP Ed25519, EC P-256/P-384) or
 * a COSE_Key map (kty 7, 1 or 2); null for anything else, private keys included.
 *
 * @example
 * ```ts
 * readScittKey({ kty: 'EC', crv: 'P-256', x, y }); // { alg: 'ES256', publicKey: 04||x||y }
 * ```
 */
export function readScittKey(key: unknown): ScittKey | null {
  if (key instanceof Map) {
    if (key.get(1) === 2) {
      const crv = Object.values(EC_CURVES).find((c) => c.cose === key.get(-1));
      const pub = crv && !key.has(-4) ? ecPoint(key.get(-2), key.get(-3), crv.length) : null;
      const kid = key.get(2);
      return crv && pub ? { alg: crv.alg, publicKey: pub, ...(kid instanceof Uint8Array ? { kid } : {}) } : null;
    }
    return readCoseKey(key);
  }
  if (typeof key !== 'object' || key === null) return null;
  const k = key as Record<string, unknown>;
  if (typeof k.alg === 'string' && k.publicKey instanceof Uint8Array) {
    const alg = k.alg as ScittAlg;
    const length =
      alg === 'ES256' ? 65 : alg === 'ES384' ? 97 : (ENVELOPE_ALGS as Record<string, { publicKeyLength: number }>)[alg]?.publicKeyLength;
    if (length !== k.publicKey.length) return null;
    return { alg, publicKey: k.publicKey, ...(k.kid instanceof Uint8Array || typeof k.kid === 'string' ? { kid: k.kid } : {}) };
  }
  if (k.kty === 'EC' && typeof k.crv === 'string' && k.crv in EC_CURVES && !('d' in k)) {
    const crv = EC_CURVES[k.crv as keyof typeof EC_CURVES];
    const pub = ecPoint(fromBase64Url(k.x), fromBase64Url(k.y), crv.length);
    return pub ? { alg: crv.alg, publicKey: pub, ...(typeof k.kid === 'string' ? { kid: k.kid } : {}) } : null;
  }
  return readJwk(key);
}

/**
 * A platform's own Ed25519 and ECDSA (OpenSSL through node:crypto, say), injected where the core
 * would use noble: true or false, or undefined to leave the check to noble. It must never throw.
 *
 * @example
 * ```ts
 * const classical: ClassicalVerify = (alg, pk, msg, sig) => (alg === 'Ed25519' ? opensslEd25519(pk, msg, sig) : undefined);
 * ```
 */
export type ClassicalVerify = (
  alg: 'Ed25519' | 'ES256' | 'ES384',
  publicKey: Uint8Array,
  message: Uint8Array,
  signature: Uint8Array,
) => boolean | undefined;

/** A key's kid as bytes-or-text compared with a header's: hex for bytes. */
export function kidText(kid: Uint8Array | string | undefined): string | undefined {
  return kid instanceof Uint8Array ? toHex(kid) : kid;
}

/**
 * Check one signature; never throws. ECDSA signatures are COSE's fixed-width r||s (RFC 9053
 * s.2.1), hashed with SHA-256 / SHA-384, high S accepted as ECDSA allows (the IETF's own ES256
 * example has one). (r, n - s) verifies as well as (r, s): a log that keys entries by bytes
 * registers low S only (`ecdsaLowS`, the registration policy).
 *
 * @example
 * ```ts
 * scittVerify('ES256', key.publicKey, toBeSigned, signature); // true or false
 * ```
 */
export function scittVerify(
  alg: ScittAlg,
  publicKey: Uint8Array,
  message: Uint8Array,
  signature: Uint8Array,
  compute?: SyncVerify,
  classical?: ClassicalVerify,
): boolean {
  if (classical && (alg === 'Ed25519' || alg === 'ES256' || alg === 'ES384')) {
    const r = classical(alg, publicKey, message, signature);
    if (r !== undefined) return r;
  }
  if (alg !== 'ES256' && alg !== 'ES384') return envelopeVerify(alg, publicKey, message, signature, compute);
  const [curve, width] = alg === 'ES256' ? [p256, 64] : [p384, 96];
  if (signature.length !== width || publicKey.length !== 1 + width) return false;
  try {
    return curve.verify(signature, message, publicKey, { lowS: false }) === true;
  } catch {
    return false;
  }
}

const isEc = (alg: ScittAlg): alg is 'ES256' | 'ES384' => alg === 'ES256' || alg === 'ES384';
const ecCurve = (alg: 'ES256' | 'ES384') => (alg === 'ES256' ? EC_CURVES['P-256'] : EC_CURVES['P-384']);

/**
 * A key's RFC 9679 COSE_Key thumbprint: SHA-256 of its required members (EC2: kty, crv, x, y).
 *
 * @example
 * ```ts
 * toHex(scittCoseThumbprint(key)); // what a COSE header's kid names
 * ```
 */
export function scittCoseThumbprint(k: ScittKey): Uint8Array {
  if (!isEc(k.alg)) return coseKeyThumbprint(k.alg, k.publicKey);
  const c = ecCurve(k.alg);
  const x = k.publicKey.subarray(1, 1 + c.length);
  const y = k.publicKey.subarray(1 + c.length);
  return sha256(
    cborEncode(
      new Map<number, number | Uint8Array>([
        [1, 2],
        [-1, c.cose],
        [-2, x],
        [-3, y],
      ]),
    ),
  );
}

/**
 * A key's RFC 7638 JWK thumbprint (SHA-256, base64url; EC: crv, kty, x, y).
 *
 * @example
 * ```ts
 * scittJwkThumbprint(key); // what a JWK Set's kid usually is
 * ```
 */
export function scittJwkThumbprint(k: ScittKey): string {
  if (!isEc(k.alg)) return jwkThumbprint(k.alg, k.publicKey);
  const c = ecCurve(k.alg);
  const x = toBase64Url(k.publicKey.subarray(1, 1 + c.length));
  const y = toBase64Url(k.publicKey.subarray(1 + c.length));
  const crv = k.alg === 'ES256' ? 'P-256' : 'P-384';
  return toBase64Url(sha256(utf8(`{"crv":"${crv}","kty":"EC","x":"${x}","y":"${y}"}`)));
}

/**
 * Whether an ECDSA r||s signature is in low-S form (0 < s <= n/2) at its width: the one of the
 * two valid encodings a log registers.
 *
 * @example
 * ```ts
 * ecdsaLowS('ES256', signature); // false for (r, n - s) of a low-S signature
 * ```
 */
export function ecdsaLowS(alg: 'ES256' | 'ES384', signature: Uint8Array): boolean {
  const width = alg === 'ES256' ? 32 : 48;
  if (signature.length !== 2 * width) return false;
  const n = (alg === 'ES256' ? p256 : p384).Point.CURVE().n;
  let s = 0n;
  for (const b of signature.subarray(width)) s = (s << 8n) | BigInt(b);
  return s > 0n && s <= n >> 1n;
}
