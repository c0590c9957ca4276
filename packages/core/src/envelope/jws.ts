// JWS in the general JSON serialization (RFC 7515 s.7.2.1), made and checked as our envelopes use
// it: every header parameter protected (no unprotected `header`), `alg` one of the envelope
// algorithms (never `none`), `kid` naming a key of the set given, `typ` the kind's media type, no
// `crit` and no `b64` (RFC 7797: the payload is always base64url), and every signature valid.
import { jwkSet } from './forms.js';
import { canonicalize } from '../encoding/jcs.js';
import { fromBase64Url, fromUtf8, toBase64Url, utf8 } from '../encoding/bytes.js';
import { MAX_BODY_BYTES } from '../limits.js';
import { isObj, parseObject } from '../lib/json.js';
import type { SyncVerify } from '../crypto/algorithms.js';
import { ENVELOPE_ALGS, jwkThumbprint, readJwk, type EnvelopeAlg, type Jwks } from './keys.js';
import { envelopeVerify, type EnvelopeSigner } from './signers.js';
import type { EnvelopeErrorCode, EnvelopeVerdict, SignatureVerdict } from './verdict.js';

/**
 * A JWS in the general JSON serialization, as our envelopes carry it.
 *
 * @example
 * ```ts
 * const jws: GeneralJws = { payload: 'eyJ...', signatures: [{ protected: 'eyJ...', signature: '...' }] };
 * ```
 */
export interface GeneralJws {
  payload: string;
  signatures: { protected: string; signature: string }[];
}

/** A protected header is a few names and a thumbprint: anything longer is refused unread. */
const MAX_HEADER_BYTES = 4096;
/** One ML-DSA-87 and one Ed25519 signature is what we make; a few more is still reasonable. */
const MAX_SIGNATURES = 4;
/** Header parameters that would ask a verifier to fetch or trust a key from the message itself. */
const KEY_CARRYING = ['jku', 'jwk', 'x5u', 'x5c', 'x5t', 'x5t#S256'];

/**
 * Sign `payload` with each signer: one signature each, in order, under a protected header
 * `{alg, kid, typ}` (JCS, so the same inputs give the same bytes; kid is the RFC 7638 thumbprint).
 *
 * @example
 * ```ts
 * const jws = signJws(receiptMessage(receipt)!, [mlDsa87Signer(K.answer)], 'vnd.svc.answer-receipt+json');
 * ```
 */
export function signJws(payload: Uint8Array, signers: readonly EnvelopeSigner[], typ: string): GeneralJws {
  const body = toBase64Url(payload);
  return {
    payload: body,
    signatures: signers.map((s) => {
      const header = toBase64Url(utf8(canonicalize({ alg: s.alg, kid: jwkThumbprint(s.alg, s.publicKey), typ })));
      return { protected: header, signature: toBase64Url(s.sign(utf8(`${header}.${body}`))) };
    }),
  };
}

/**
 * Options of verifyJws: the media type expected in `typ`, the algorithms accepted, the backend.
 *
 * @example
 * ```ts
 * const opts: JwsVerifyOptions = { typ: 'vnd.svc.answer-receipt+json', algorithms: ['ML-DSA-87'] };
 * ```
 */
export interface JwsVerifyOptions {
  /**
   * Every signature's protected `typ` must equal it. Required: the kind is checked by default, and
   * a caller that accepts any kind says so with `null` (each signature's verdict then carries the
   * `typ` it signed). Left out, the envelope fails `wrong_typ`.
   */
  typ: string | null;
  /** Default: every envelope algorithm. */
  algorithms?: readonly EnvelopeAlg[];
  compute?: SyncVerify;
}

// Each key is read once (base64url decoding of 2,592 bytes) and kept while its JWK object lives.
const read = new WeakMap<object, ReturnType<typeof readJwk>>();
function readSet(keys: Jwks): NonNullable<ReturnType<typeof readJwk>>[] {
  if (typeof keys !== 'object' || keys === null || !Array.isArray(keys.keys)) return [];
  const out: NonNullable<ReturnType<typeof readJwk>>[] = [];
  for (const jwk of keys.keys as unknown[]) {
    if (typeof jwk !== 'object' || jwk === null) continue;
    let k = read.get(jwk);
    if (k === undefined) {
      k = readJwk(jwk);
      read.set(jwk, k);
    }
    if (k) out.push(k);
  }
  return out;
}

const fail = (error: EnvelopeErrorCode, detail: string, signatures: SignatureVerdict[] = []): EnvelopeVerdict => ({
  ok: false,
  error,
  detail,
  signatures,
});

/** A protected header read strictly, or the reason it was refused. */
function readHeader(b64: unknown): Record<string, unknown> | [EnvelopeErrorCode, string] {
  if (typeof b64 !== 'string' || b64.length > (MAX_HEADER_BYTES * 4) / 3 + 4) return ['malformed', 'a protected header over 4 KiB'];
  const bytes = fromBase64Url(b64);
  if (!bytes) return ['malformed', 'a protected header that is not canonical base64url'];
  let text: string;
  try {
    text = fromUtf8(bytes);
  } catch {
    return ['malformed', 'a protected header that is not UTF-8'];
  }
  const h = parseObject(text);
  if (!h) return ['malformed', 'a protected header that is not an I-JSON object'];
  if ('crit' in h || 'b64' in h) return ['crit', 'a protected header with crit or b64 (no extension is understood here)'];
  const carried = KEY_CARRYING.find((k) => k in h);
  if (carried) return ['malformed', `a protected header carrying a key (${carried}); keys come from the verifier`];
  return h;
}

/**
 * Verify a general-serialization JWS against trusted keys (a JWK Set). Never throws: the verdict
 * says which signature failed and why. `ok` only when there is at least one signature and every
 * one verifies with a key of the set whose `alg` is the header's.
 *
 * @example
 * ```ts
 * const v = verifyJws(jws, jwks, { typ: 'vnd.svc.answer-receipt+json' });
 * if (v.ok) console.log(fromUtf8(v.payload!));
 * ```
 */
export function verifyJws(jws: unknown, keys: Jwks, opts: JwsVerifyOptions = { typ: undefined as unknown as null }): EnvelopeVerdict {
  jwkSet(keys);
  if (!isObj(jws) || typeof jws.payload !== 'string' || !Array.isArray(jws.signatures))
    return fail('malformed', 'not a JWS in the general JSON serialization');
  const extra = Object.keys(jws).find((k) => k !== 'payload' && k !== 'signatures');
  if (extra) return fail('malformed', `an unexpected member ${JSON.stringify(extra.slice(0, 40))}`);
  if (jws.signatures.length === 0 || jws.signatures.length > MAX_SIGNATURES)
    return fail('malformed', `between 1 and ${MAX_SIGNATURES} signatures`);
  if (jws.payload.length > (MAX_BODY_BYTES * 4) / 3 + 4) return fail('too_large', 'a payload over the body limit');
  const payload = fromBase64Url(jws.payload);
  if (!payload) return fail('malformed', 'a payload that is not canonical base64url');
  const accepted = opts.algorithms ?? (Object.keys(ENVELOPE_ALGS) as EnvelopeAlg[]);
  const trusted = readSet(keys);
  const signatures: SignatureVerdict[] = [];
  for (const s of jws.signatures as unknown[]) {
    if (!isObj(s) || Object.keys(s).some((k) => k !== 'protected' && k !== 'signature'))
      return fail('malformed', 'a signature with members other than protected and signature', signatures);
    const h = readHeader(s.protected);
    if (Array.isArray(h)) return fail(h[0], h[1], signatures);
    const alg = h.alg;
    const kid = typeof h.kid === 'string' ? h.kid : '';
    if (typeof alg !== 'string' || !(alg in ENVELOPE_ALGS) || !accepted.includes(alg as EnvelopeAlg))
      return fail('unsupported_alg', `alg ${JSON.stringify(String(alg).slice(0, 40))} is not accepted`, signatures);
    const typ = typeof h.typ === 'string' ? { typ: h.typ } : {};
    if (opts.typ !== null && (opts.typ === undefined || h.typ !== opts.typ)) {
      signatures.push({ alg, kid, ok: false, error: 'wrong_typ', ...typ });
      continue;
    }
    const sig = fromBase64Url(s.signature);
    const key = trusted.find((k) => k.alg === alg && (k.kid ?? jwkThumbprint(k.alg, k.publicKey)) === kid);
    if (!key) {
      signatures.push({ alg, kid, ok: false, error: 'unknown_key', ...typ });
      continue;
    }
    const ok =
      !!sig && envelopeVerify(alg as EnvelopeAlg, key.publicKey, utf8(`${s.protected as string}.${jws.payload}`), sig, opts.compute);
    signatures.push(ok ? { alg, kid, ok, ...typ } : { alg, kid, ok, error: 'bad_signature', ...typ });
  }
  const bad = signatures.find((s) => !s.ok);
  return bad
    ? { ok: false, error: bad.error!, detail: `a ${bad.alg} signature failed (${bad.error})`, signatures }
    : { ok: true, payload, signatures };
}
