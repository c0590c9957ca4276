// A receipt's envelopes: the exact bytes its native signature covers (the canonical receipt core),
// signed again as a JWS and as COSE_Sign1s any JOSE or COSE library reads. They travel in the
// receipt's unsigned member `envelopes`; a receipt without it is what it always was.
import { fromBase64Url, toBase64Url } from '../encoding/bytes.js';
import { isObj, type JsonObject } from '../lib/json.js';
import type { Names } from '../names.js';
import type { SyncVerify } from '../crypto/algorithms.js';
import { receiptMessage } from '../wire/signed.js';
import { coseClaims, signCose1, verifyCose1 } from './cose.js';
import { signJws, verifyJws } from './jws.js';
import { coseKey, ENVELOPE_ALGS, publicJwk, type EnvelopeAlg } from './keys.js';
import { ed25519Signer, mlDsa87Signer, type EnvelopeSigner } from './signers.js';
import type { EnvelopeVerdict } from './verdict.js';
import type { EnvelopeChecker, EnvelopeFormat, EnvelopeMaker, ReceiptEnvelopes, ReceiptKind } from './checker.js';
import type { Static } from 'typebox';
import type * as S from '../schemas/verdicts.js';

/**
 * The media types of a kind's envelopes (deployment-specific, as the signing contexts are): JOSE's
 * `typ` without the `application/` prefix (RFC 7515 s.4.1.9), COSE's with it (RFC 9596).
 *
 * @example
 * ```ts
 * envelopeTypes(namesFor('svc'), 'answer'); // { jose: 'vnd.svc.answer-receipt+json', cose: 'application/vnd.svc.answer-receipt+json' }
 * ```
 */
export function envelopeTypes(names: Names, kind: ReceiptKind): { jose: string; cose: string } {
  const jose = `vnd.${names.service}.${kind}-receipt+json`;
  return { jose, cose: `application/${jose}` };
}

/**
 * The kind whose receipts are signed under `context`, if any.
 *
 * @example
 * ```ts
 * kindOfContext(namesFor('svc'), 'svc-provenance-v1'); // 'answer'
 * ```
 */
export function kindOfContext(names: Names, context: string): ReceiptKind | undefined {
  const c = names.contexts;
  return context === c.answer
    ? 'answer'
    : context === c.autopilot
      ? 'run'
      : context === c.export
        ? 'export'
        : context === c.sth
          ? 'tree-head'
          : undefined;
}

/**
 * Envelopes for a signed receipt: the same canonical receipt core its signature covers, as a JWS
 * with one signature per signer and as one COSE_Sign1 per signer (CWT iss = the service, iat =
 * the receipt's `ts`).
 *
 * @example
 * ```ts
 * receipt.envelopes = makeEnvelopes(receipt, 'answer', namesFor('svc'), [mlDsa87Signer(K.answer)], ['jws', 'cose']);
 * ```
 */
export function makeEnvelopes(
  receipt: JsonObject,
  kind: ReceiptKind,
  names: Names,
  signers: readonly EnvelopeSigner[],
  formats: readonly EnvelopeFormat[],
): ReceiptEnvelopes {
  const payload = receiptMessage(receipt);
  if (!payload) throw new TypeError('the receipt cannot be canonicalised');
  if (typeof receipt.ts !== 'number') throw new TypeError('the receipt has no ts');
  const t = envelopeTypes(names, kind);
  const out: ReceiptEnvelopes = {};
  if (formats.includes('jws')) out.jws = signJws(payload, signers, t.jose);
  if (formats.includes('cose'))
    out.cose = signers.map((s) => toBase64Url(signCose1(payload, s, t.cose, { iss: names.service, iat: receipt.ts as number })));
  return out;
}

/**
 * What the verdict says of a receipt's envelopes: each one's result, and `ok` when all hold.
 *
 * @example
 * ```ts
 * if (res.kind === 'svc-proof' && res.verdict.receipt.envelopes) console.log(res.verdict.receipt.envelopes.ok);
 * ```
 */
export type EnvelopesVerdict = Static<typeof S.EnvelopesVerdict>;

/**
 * One envelope's result in a verdict.
 *
 * @example
 * ```ts
 * const c: EnvelopeCheck = { ok: true, signatures: [{ alg: 'ML-DSA-87', kid: '...', ok: true }] };
 * ```
 */
export type EnvelopeCheck = Static<typeof S.EnvelopeCheck>;

// A bundle's keys come from the key cache, the same bytes each time: their JWK and COSE_Key (a
// thumbprint each) are made once per key.
const jwkCache = new WeakMap<Uint8Array, ReturnType<typeof publicJwk>>();
const coseKeyCache = new WeakMap<Uint8Array, ReturnType<typeof coseKey>>();
function jwkOf(alg: EnvelopeAlg, pk: Uint8Array): ReturnType<typeof publicJwk> {
  const known = jwkCache.get(pk);
  if (known && known.alg === alg) return known;
  const k = publicJwk(alg, pk);
  jwkCache.set(pk, k);
  return k;
}
function coseKeyOf(alg: EnvelopeAlg, pk: Uint8Array): ReturnType<typeof coseKey> {
  const known = coseKeyCache.get(pk);
  if (known && known.get(3) === ENVELOPE_ALGS[alg].cose) return known;
  const k = coseKey(alg, pk);
  coseKeyCache.set(pk, k);
  return k;
}

// WF-ENVELOPE-KEYS: the verifier's pinning, never the envelope's or the bundle's word.
/** One envelope's result, each signature marked with whether the verifier pinned its key. */
const checkOf = (v: EnvelopeVerdict, recognized: Partial<Record<EnvelopeAlg, boolean>>): EnvelopeCheck => ({
  ok: v.ok,
  ...(v.error ? { error: v.error } : {}),
  signatures: v.signatures.map((s) => ({ ...s, keyRecognized: recognized[s.alg as EnvelopeAlg] === true })),
});

function samePayload(v: EnvelopeVerdict, expected: Uint8Array): EnvelopeVerdict {
  if (!v.ok || !v.payload) return v;
  if (v.payload.length === expected.length && v.payload.every((b, i) => b === expected[i])) return v;
  return { ok: false, error: 'payload_mismatch', detail: 'the envelope signs other bytes than the receipt', signatures: v.signatures };
}

// WF-ENVELOPES
/**
 * Check a receipt's `envelopes` against the keys the bundle's receipt verified with (its ML-DSA-87
 * key, and an Ed25519 key the bundle's key object names): every envelope must sign exactly the
 * receipt core, under the kind's media type, with those keys. A key the bundle brings proves
 * integrity only: each signature says `keyRecognized`, true only for a key `recognized` names as
 * pinned by the verifier. Never throws.
 *
 * @example
 * ```ts
 * const v = checkEnvelopes(receipt, 'answer', names, { 'ML-DSA-87': pk });
 * ```
 */
export function checkEnvelopes(
  receipt: JsonObject,
  kind: ReceiptKind | undefined,
  names: Names,
  keys: Partial<Record<EnvelopeAlg, Uint8Array>>,
  compute?: SyncVerify,
  recognized: Partial<Record<EnvelopeAlg, boolean>> = {},
): EnvelopesVerdict {
  const e = receipt.envelopes;
  const broken: EnvelopesVerdict = { checked: true, ok: false };
  const message = receiptMessage(receipt);
  if (!isObj(e) || !kind || !message) return broken;
  if (Object.keys(e).some((k) => k !== 'jws' && k !== 'cose') || (e.jws === undefined && e.cose === undefined)) return broken;
  const t = envelopeTypes(names, kind);
  const algs = Object.keys(keys) as EnvelopeAlg[];
  const out: EnvelopesVerdict = { checked: true, ok: true };
  if (e.jws !== undefined) {
    const jwks = { keys: algs.map((a) => jwkOf(a, keys[a]!)) };
    out.jws = checkOf(samePayload(verifyJws(e.jws, jwks, { typ: t.jose, algorithms: algs, compute }), message), recognized);
  }
  if (e.cose !== undefined) {
    const set = algs.map((a) => coseKeyOf(a, keys[a]!));
    out.cose = (Array.isArray(e.cose) && e.cose.length > 0 && e.cose.length <= 4 ? e.cose : [null]).map((item) => {
      const bytes = fromBase64Url(item);
      if (!bytes) return { ok: false, error: 'malformed' as const, signatures: [] };
      const v = samePayload(verifyCose1(bytes, set, { typ: t.cose, algorithms: algs, compute }), message);
      // The claims must be the receipt's own: its service and its time.
      const claims = v.ok ? coseClaims(bytes) : null;
      if (v.ok && (claims?.iss !== names.service || claims?.iat !== receipt.ts))
        return checkOf({ ...v, ok: false, error: 'payload_mismatch' }, recognized);
      return checkOf(v, recognized);
    });
  }
  out.ok = (out.jws?.ok ?? true) && (out.cose?.every((c) => c.ok) ?? true);
  return out;
}

/**
 * The envelope checker `verifyBundle` takes (`{ envelopes: envelopeChecker }`): every envelope a
 * receipt carries must verify, under the kind its signing context names.
 *
 * @example
 * ```ts
 * const res = await verifyBundle(bundle, { trustedKeys, envelopes: envelopeChecker });
 * if (res.kind === 'svc-proof') console.log(res.verdict.receipt.envelopes);
 * ```
 */
export const envelopeChecker: EnvelopeChecker = (receipt, context, names, keys, compute, recognized) =>
  checkEnvelopes(receipt, kindOfContext(names, context), names, keys, compute, recognized);

/**
 * An envelope maker for the issuing functions (`IssuerKeys.envelopes`): the formats to add, and an
 * Ed25519 seed (32 bytes) to sign them classically too.
 *
 * @example
 * ```ts
 * const bundle = issueProof(input, { receipt: K.answer, envelopes: envelopeMaker({ formats: ['jws', 'cose'], ed25519: seed32 }) });
 * ```
 */
export function envelopeMaker(o: { formats: readonly EnvelopeFormat[]; ed25519?: Uint8Array }): EnvelopeMaker {
  const ed = o.ed25519 ? ed25519Signer(o.ed25519) : undefined;
  const make = (
    receipt: JsonObject,
    context: string,
    names: Names,
    key: Parameters<typeof mlDsa87Signer>[0],
    random?: (n: number) => Uint8Array,
    crypto?: Parameters<typeof mlDsa87Signer>[2],
  ) => {
    const kind = kindOfContext(names, context);
    if (!kind) throw new TypeError(`no envelope kind is signed under the context ${context}`);
    return makeEnvelopes(receipt, kind, names, [mlDsa87Signer(key, random, crypto), ...(ed ? [ed] : [])], o.formats);
  };
  return Object.assign(make, ed ? { ed25519PublicKey: ed.publicKey } : {});
}
