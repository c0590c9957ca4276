// COSE_Sign1 (RFC 9052 s.4.2), tagged 18, as our envelopes use it: the protected header holds
// alg (1), kid (4), CWT claims (15: iss, iat; RFC 9597) and typ (16, RFC 9596); the unprotected
// header is empty; the payload is attached; the signature covers the Sig_structure
// ["Signature1", protected, h'', payload].
import { coseBytes, keyArray } from './forms.js';
import { toHex } from '../encoding/bytes.js';
import { MAX_BODY_BYTES } from '../limits.js';
import type { SyncVerify } from '../crypto/algorithms.js';
import { cborDecode, cborEncode, CborError, Tagged, type CborValue } from './cbor.js';
import { algOfCose, coseKeyThumbprint, ENVELOPE_ALGS, readCoseKey, type EnvelopeAlg } from './keys.js';
import { envelopeVerify, type EnvelopeSigner } from './signers.js';
import type { EnvelopeErrorCode, EnvelopeVerdict, SignatureVerdict } from './verdict.js';

/**
 * COSE header labels (RFC 9052 s.3.1, RFC 9596, RFC 9597).
 *
 * @example
 * ```ts
 * readCose1(bytes).header.get(COSE_HEADER.typ); // 'application/vnd.svc.answer-receipt+json'
 * ```
 */
export const COSE_HEADER = { alg: 1, crit: 2, kid: 4, cwtClaims: 15, typ: 16 } as const;
// Headers that carry a key or point at one (RFC 9360: x5bag, x5chain, x5t, x5u): an envelope's
// key comes from the verifier's set, never from the envelope, as the JWS reader refuses x5c / x5u.
const KEY_CARRYING = [32, 33, 34, 35] as const;
const CWT_ISS = 1;
const CWT_IAT = 6;
const COSE_SIGN1_TAG = 18;

/**
 * The claims a COSE envelope states about itself: issuer and issuing time (Unix seconds).
 *
 * @example
 * ```ts
 * const claims: CwtClaims = { iss: 'svc', iat: 1767225600 };
 * ```
 */
export interface CwtClaims {
  iss: string;
  iat: number;
}

/**
 * Sig_structure (RFC 9052 s.4.4) for a COSE_Sign1 with no external data: the bytes its signature covers.
 *
 * @example
 * ```ts
 * const { protectedBytes, payload } = readCose1(bytes);
 * const toBeSigned = sigStructure(protectedBytes, payload!);
 * ```
 */
export function sigStructure(protectedBytes: Uint8Array, payload: Uint8Array): Uint8Array {
  return cborEncode(['Signature1', protectedBytes, new Uint8Array(0), payload]);
}

/**
 * Sign `payload` as a tagged COSE_Sign1 (deterministic CBOR; kid is the key's RFC 9679 thumbprint).
 *
 * @example
 * ```ts
 * const bytes = signCose1(receiptMessage(receipt)!, mlDsa87Signer(K.answer), 'application/vnd.svc.answer-receipt+json', { iss: 'svc', iat: receipt.ts });
 * ```
 */
export function signCose1(payload: Uint8Array, signer: EnvelopeSigner, typ: string, claims: CwtClaims): Uint8Array {
  const header = new Map<number, CborValue>([
    [COSE_HEADER.alg, ENVELOPE_ALGS[signer.alg].cose],
    [COSE_HEADER.kid, coseKeyThumbprint(signer.alg, signer.publicKey)],
    [
      COSE_HEADER.cwtClaims,
      new Map<number, CborValue>([
        [CWT_ISS, claims.iss],
        [CWT_IAT, claims.iat],
      ]),
    ],
    [COSE_HEADER.typ, typ],
  ]);
  const protectedBytes = cborEncode(header);
  const signature = signer.sign(sigStructure(protectedBytes, payload));
  return cborEncode(new Tagged(COSE_SIGN1_TAG, [protectedBytes, new Map(), payload, signature]));
}

/**
 * A COSE_Sign1 read apart: its protected bytes and header, payload and signature; throws CborError
 * or a TypeError naming what is not a COSE_Sign1.
 *
 * @example
 * ```ts
 * const { header, payload } = readCose1(bytes);
 * ```
 */
export function readCose1(bytes: Uint8Array): {
  protectedBytes: Uint8Array;
  header: Map<CborValue, CborValue>;
  unprotected: Map<CborValue, CborValue>;
  payload: Uint8Array | null;
  signature: Uint8Array;
} {
  const v = cborDecode(bytes, [COSE_SIGN1_TAG]);
  if (!(v instanceof Tagged) || v.tag !== COSE_SIGN1_TAG) throw new TypeError('not a tagged COSE_Sign1 (tag 18)');
  const a = v.value;
  if (!Array.isArray(a) || a.length !== 4) throw new TypeError('a COSE_Sign1 is an array of four');
  const [protectedBytes, unprotected, payload, signature] = a as CborValue[];
  if (!(protectedBytes instanceof Uint8Array) || !(unprotected instanceof Map) || !(signature instanceof Uint8Array))
    throw new TypeError('a COSE_Sign1 is [bstr, map, bstr / nil, bstr]');
  if (!(payload instanceof Uint8Array) && payload !== null) throw new TypeError('a COSE_Sign1 payload is a bstr or nil');
  const header = protectedBytes.length === 0 ? new Map() : cborDecode(protectedBytes);
  if (!(header instanceof Map)) throw new TypeError('a protected header is a map');
  return { protectedBytes, header, unprotected, payload, signature };
}

/**
 * Options of verifyCose1: the `typ` expected, the algorithms accepted, the backend.
 *
 * @example
 * ```ts
 * const opts: CoseVerifyOptions = { typ: 'application/vnd.svc.answer-receipt+json' };
 * ```
 */
export interface CoseVerifyOptions {
  /**
   * The protected `typ` expected. Required: the kind is checked by default, and a caller that
   * accepts any kind says so with `null` (the verdict then carries the `typ` signed). Left out,
   * the envelope fails `wrong_typ`.
   */
  typ: string | null;
  algorithms?: readonly EnvelopeAlg[];
  compute?: SyncVerify;
}

const refuse = (error: EnvelopeErrorCode, detail: string, signatures: SignatureVerdict[] = []): EnvelopeVerdict => ({
  ok: false,
  error,
  detail,
  signatures,
});

/**
 * Verify a tagged COSE_Sign1 against trusted COSE keys (COSE_Key maps, as a COSE_KeySet holds
 * them). Never throws. Every parameter our envelopes use is protected: an unprotected header must
 * be empty, `crit` is refused, detached payloads are refused.
 *
 * @example
 * ```ts
 * const v = verifyCose1(bytes, [coseKey('ML-DSA-87', pk)], { typ: 'application/vnd.svc.answer-receipt+json' });
 * ```
 */
export function verifyCose1(
  bytes: unknown,
  keys: readonly unknown[],
  opts: CoseVerifyOptions = { typ: undefined as unknown as null },
): EnvelopeVerdict {
  coseBytes(bytes, 'the COSE_Sign1');
  keyArray(keys, 'the keys');
  if (!(bytes instanceof Uint8Array)) return refuse('malformed', 'a COSE_Sign1 is bytes');
  if (bytes.length > MAX_BODY_BYTES) return refuse('too_large', 'a COSE_Sign1 over the body limit');
  let c: ReturnType<typeof readCose1>;
  try {
    c = readCose1(bytes);
  } catch (e) {
    return refuse('malformed', e instanceof CborError || e instanceof TypeError ? e.message : 'not CBOR');
  }
  if (c.header.has(COSE_HEADER.crit)) return refuse('crit', 'a crit header parameter (no extension is understood here)');
  const carried = KEY_CARRYING.find((l) => c.header.has(l));
  if (carried !== undefined) return refuse('malformed', `a header carrying a key (label ${carried}); keys come from the verifier`);
  if (c.unprotected.size > 0) return refuse('malformed', 'an unprotected header (every parameter is protected here)');
  if (!c.payload) return refuse('malformed', 'a detached payload');
  const alg = algOfCose(c.header.get(COSE_HEADER.alg));
  const accepted = opts.algorithms ?? (Object.keys(ENVELOPE_ALGS) as EnvelopeAlg[]);
  if (!alg || !accepted.includes(alg))
    return refuse('unsupported_alg', `alg ${String(c.header.get(COSE_HEADER.alg)).slice(0, 20)} is not accepted`);
  const kidBytes = c.header.get(COSE_HEADER.kid);
  const kid = kidBytes instanceof Uint8Array ? toHex(kidBytes) : '';
  const signedTyp = c.header.get(COSE_HEADER.typ);
  const typ = typeof signedTyp === 'string' ? { typ: signedTyp } : {};
  if (opts.typ !== null && (opts.typ === undefined || signedTyp !== opts.typ))
    return refuse(
      'wrong_typ',
      opts.typ === undefined
        ? 'no typ expected was given (pass the kind, or typ: null to accept any)'
        : 'typ is not the media type expected',
      [{ alg, kid, ok: false, error: 'wrong_typ', ...typ }],
    );
  const key = keys
    .map(readCoseKey)
    .find((k) => k !== null && k.alg === alg && toHex(k.kid ?? coseKeyThumbprint(k.alg, k.publicKey)) === kid);
  if (!key) return refuse('unknown_key', 'no trusted key with that kid and alg', [{ alg, kid, ok: false, error: 'unknown_key', ...typ }]);
  const ok = envelopeVerify(alg, key.publicKey, sigStructure(c.protectedBytes, c.payload), c.signature, opts.compute);
  if (!ok) return refuse('bad_signature', `the ${alg} signature does not verify`, [{ alg, kid, ok, error: 'bad_signature', ...typ }]);
  return { ok: true, payload: c.payload, signatures: [{ alg, kid, ok, ...typ }] };
}

/**
 * The CWT claims and typ a COSE_Sign1 states (read without verifying), or null.
 *
 * @example
 * ```ts
 * coseClaims(bytes); // { iss: 'svc', iat: 1767225600, typ: 'application/vnd.svc.answer-receipt+json' }
 * ```
 */
export function coseClaims(bytes: Uint8Array): { iss?: string; iat?: number; typ?: string } | null {
  try {
    const { header } = readCose1(bytes);
    const cwt = header.get(COSE_HEADER.cwtClaims);
    const claims = cwt instanceof Map ? cwt : new Map();
    const iss = claims.get(CWT_ISS);
    const iat = claims.get(CWT_IAT);
    const typ = header.get(COSE_HEADER.typ);
    return {
      ...(typeof iss === 'string' ? { iss } : {}),
      ...(typeof iat === 'number' ? { iat } : {}),
      ...(typeof typ === 'string' ? { typ } : {}),
    };
  } catch {
    return null;
  }
}
