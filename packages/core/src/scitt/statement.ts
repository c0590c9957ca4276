// SCITT Signed Statements (RFC 9943 s.6): a COSE_Sign1 whose protected header names its issuer and
// subject in CWT claims (label 15). Ours are COSE Hash Envelopes (labels 258/259): the payload is the
// SHA-256 of the answer's UTF-8 text, so a statement, and the log that registers it, carries no
// content. The leaf entry a log appends is the SHA-256 of the statement as registered: its bytes
// with any receipts (unprotected label 394) taken out.
import { coseBytes, keyArray } from '../envelope/forms.js';
import { fromUtf8, toHex } from '../encoding/bytes.js';
import { sha256 } from '../encoding/hash.js';
import { MAX_BODY_BYTES } from '../limits.js';
import type { SyncVerify } from '../crypto/algorithms.js';
import { cborEncode, CborError, Tagged, type CborValue } from '../envelope/cbor.js';
import { COSE_HEADER, readCose1, sigStructure } from '../envelope/cose.js';
import { coseKeyThumbprint, ENVELOPE_ALGS } from '../envelope/keys.js';
import type { EnvelopeSigner } from '../envelope/signers.js';
import {
  kidText,
  readScittKey,
  scittAlgOfCose,
  scittCoseThumbprint,
  scittJwkThumbprint,
  scittVerify,
  type ClassicalVerify,
  type ScittAlg,
  type ScittKey,
} from './keys.js';
import type { ScittErrorCode, StatementVerdict } from './verdict.js';

/**
 * Header labels SCITT adds to COSE (RFC 9943, RFC 9942, COSE Hash Envelope).
 *
 * @example
 * ```ts
 * readCose1(bytes).unprotected.get(SCITT_HEADER.receipts); // the receipts of a transparent statement
 * ```
 */
export const SCITT_HEADER = {
  contentType: 3,
  x5chain: 33,
  payloadHashAlg: 258,
  preimageContentType: 259,
  payloadLocation: 260,
  receipts: 394,
  vds: 395,
  vdp: 396,
} as const;
const CWT = { iss: 1, sub: 2, iat: 6 } as const;
const SHA256_COSE = -16;
const COSE_SIGN1_TAG = 18;

// What a statement may mark critical: the parameters read here.
const STATEMENT_UNDERSTOOD = new Set<CborValue>([
  COSE_HEADER.alg,
  COSE_HEADER.kid,
  COSE_HEADER.cwtClaims,
  COSE_HEADER.typ,
  SCITT_HEADER.contentType,
  SCITT_HEADER.payloadHashAlg,
  SCITT_HEADER.preimageContentType,
]);

/**
 * What our Signed Statement about an answer says.
 *
 * @example
 * ```ts
 * const s: AnswerStatement = { answerSha256, iss: 'svc', sub: 'urn:svc:answer:ab12...', iat: 1767225600, typ: 'application/vnd.svc.answer-statement+cose' };
 * ```
 */
export interface AnswerStatement {
  /** SHA-256 of the answer's UTF-8 text: the payload. */
  answerSha256: Uint8Array;
  iss: string;
  sub: string;
  iat: number;
  typ: string;
}

/**
 * Sign a Signed Statement about an answer: a COSE Hash Envelope (SHA-256, preimage
 * `text/plain; charset=utf-8`) with CWT claims iss, sub, iat, and kid the key's RFC 9679 thumbprint.
 *
 * @example
 * ```ts
 * const statement = signStatement({ answerSha256, iss: 'svc', sub, iat, typ }, mlDsa87Signer(K.answer));
 * ```
 */
export function signStatement(s: AnswerStatement, signer: EnvelopeSigner): Uint8Array {
  if (!(s.answerSha256 instanceof Uint8Array) || s.answerSha256.length !== 32) throw new RangeError('answerSha256 is 32 bytes');
  if (!Number.isSafeInteger(s.iat) || s.iat < 0) throw new RangeError('iat is a non-negative integer');
  const header = new Map<number, CborValue>([
    [COSE_HEADER.alg, ENVELOPE_ALGS[signer.alg].cose],
    [COSE_HEADER.kid, coseKeyThumbprint(signer.alg, signer.publicKey)],
    [
      COSE_HEADER.cwtClaims,
      new Map<number, CborValue>([
        [CWT.iss, s.iss],
        [CWT.sub, s.sub],
        [CWT.iat, s.iat],
      ]),
    ],
    [COSE_HEADER.typ, s.typ],
    [SCITT_HEADER.payloadHashAlg, SHA256_COSE],
    [SCITT_HEADER.preimageContentType, 'text/plain; charset=utf-8'],
  ]);
  const protectedBytes = cborEncode(header);
  const signature = signer.sign(sigStructure(protectedBytes, s.answerSha256));
  return cborEncode(new Tagged(COSE_SIGN1_TAG, [protectedBytes, new Map(), s.answerSha256, signature]));
}

/** The statement as registered: receipts (394) taken out of the unprotected header, re-encoded. */
function registeredForm(bytes: Uint8Array, c: ReturnType<typeof readCose1>): Uint8Array {
  if (!c.unprotected.has(SCITT_HEADER.receipts)) return bytes;
  const unprotected = new Map(c.unprotected);
  unprotected.delete(SCITT_HEADER.receipts);
  return cborEncode(new Tagged(COSE_SIGN1_TAG, [c.protectedBytes, unprotected, c.payload, c.signature]));
}

/**
 * The leaf entry of a Signed Statement (or of the statement inside a Transparent Statement): the
 * SHA-256 of its registered form. Throws CborError or TypeError for what is not a COSE_Sign1.
 *
 * @example
 * ```ts
 * toHex(statementLeaf(statementBytes)); // what GET /entries/{id} is named by
 * ```
 */
export function statementLeaf(bytes: Uint8Array): Uint8Array {
  return sha256(registeredForm(bytes, readCose1(bytes)));
}

/** Which labels of a `crit` list are not processed here; null when `crit` is absent or all are. */
export function unknownCrit(header: Map<CborValue, CborValue>, understood: ReadonlySet<CborValue>): string | null {
  const crit = header.get(COSE_HEADER.crit);
  if (crit === undefined) return null;
  if (!Array.isArray(crit) || crit.length === 0) return 'crit is a non-empty array';
  const unknown = crit.filter((l) => !understood.has(l));
  return unknown.length ? `crit names labels not processed here (${unknown.map(String).join(', ').slice(0, 80)})` : null;
}

/**
 * Keys of `alg` among the trusted ones, narrowed by the header's kid. A key is named by what
 * identifies it in each form: the kid its key set gave it, its RFC 9679 COSE_Key thumbprint (what
 * COSE headers and signStatement write) and its RFC 7638 JWK thumbprint (what a JWK Set's kid
 * usually is). A JWK whose kid is its JWK thumbprint thus matches a header naming its COSE
 * thumbprint: the same key, two spellings. A key given without kid is not narrowed (its key set
 * named none), nor is any key when the header has no kid.
 */
export function candidateKeys(keys: readonly unknown[], alg: ScittAlg, kid: CborValue | undefined): ScittKey[] {
  // The header's kid is read only when it is there: a binary kid fails UTF-8 decoding.
  const named = kid instanceof Uint8Array ? [toHex(kid), safeText(kid)] : typeof kid === 'string' ? [kid] : null;
  const out: ScittKey[] = [];
  for (const raw of keys) {
    const k = readScittKey(raw);
    if (k === null || k.alg !== alg) continue;
    // The given kid first: the thumbprints (two hashes of a key of up to 2.6 KB) only when it differs.
    if (named && k.kid !== undefined && !named.includes(kidText(k.kid)) && !keyNames(k).some((n) => named.includes(n))) continue;
    out.push(k);
  }
  return out;
}

/** Every name a key answers to: its given kid (hex for bytes), its COSE and JWK thumbprints. */
export function keyNames(k: ScittKey): string[] {
  let known = thumbprintsOf.get(k.publicKey);
  if (known?.alg !== k.alg) {
    known = { alg: k.alg, names: [toHex(scittCoseThumbprint(k)), scittJwkThumbprint(k)] };
    thumbprintsOf.set(k.publicKey, known);
  }
  return k.kid !== undefined ? [...known.names, kidText(k.kid)!] : known.names;
}
// A policy's or a log's keys are the same bytes for every statement: their thumbprints are made once.
const thumbprintsOf = new WeakMap<Uint8Array, { alg: ScittAlg; names: string[] }>();

function safeText(b: Uint8Array): string | undefined {
  try {
    return fromUtf8(b);
  } catch {
    return undefined;
  }
}

/**
 * Why a COSE_Sign1 is not a Signed Statement (RFC 9943 s.6), or null: a statement names its issuer
 * (CWT iss), and its typ, when present, is a COSE media type (`+cose`): an answer-receipt envelope
 * (`application/vnd.svc.answer-receipt+json`) is a signature over a receipt, never a statement.
 * The subject (CWT sub) is asked for at registration: the CCF ledger's statements carry none.
 */
function notAStatement(h: Map<CborValue, CborValue>, named: boolean): string | null {
  if (!named) return 'a Signed Statement names its issuer (CWT claims iss, text)';
  const typ = h.get(COSE_HEADER.typ);
  if (typ === undefined) return null;
  if (typeof typ !== 'string' || !/\+cose$/i.test(typ)) return `typ ${String(typ).slice(0, 60)} is not a statement's (+cose)`;
  return null;
}

const refuse = (leaf: string, error: ScittErrorCode, detail: string): StatementVerdict => ({ ok: false, error, detail, leaf });

/**
 * Verify a Signed Statement (or the statement of a Transparent Statement) against its issuers'
 * keys (JWK, COSE_Key or ScittKey). Never throws.
 *
 * @example
 * ```ts
 * const v = verifyStatement(bytes, [{ kty: 'OKP', crv: 'Ed25519', x }]);
 * ```
 */
export function verifyStatement(
  bytes: unknown,
  issuers: readonly unknown[],
  opts: { compute?: SyncVerify; classical?: ClassicalVerify } = {},
): StatementVerdict {
  coseBytes(bytes, 'the Signed Statement');
  keyArray(issuers, 'the issuer keys');
  if (!(bytes instanceof Uint8Array)) return refuse('', 'malformed', 'a Signed Statement is bytes');
  if (bytes.length > MAX_BODY_BYTES) return refuse('', 'too_large', 'a Signed Statement over the body limit');
  let c: ReturnType<typeof readCose1>;
  let leaf: string;
  try {
    c = readCose1(bytes);
    leaf = toHex(sha256(registeredForm(bytes, c)));
  } catch (e) {
    return refuse('', 'malformed', e instanceof CborError || e instanceof TypeError ? e.message : 'not CBOR');
  }
  const h = c.header;
  const claims = h.get(COSE_HEADER.cwtClaims);
  if (claims !== undefined && !(claims instanceof Map)) return refuse(leaf, 'malformed', 'CWT claims (15) are a map');
  const iss = claims?.get(CWT.iss);
  const sub = claims?.get(CWT.sub);
  const contentType = h.get(SCITT_HEADER.contentType) ?? h.get(SCITT_HEADER.preimageContentType);
  const hashAlg = h.get(SCITT_HEADER.payloadHashAlg);
  const about = {
    ...(typeof iss === 'string' ? { iss } : {}),
    ...(typeof sub === 'string' ? { sub } : {}),
    ...(typeof contentType === 'string' ? { contentType } : {}),
    ...(typeof hashAlg === 'number' ? { payloadHashAlg: hashAlg } : {}),
  };
  const crit = unknownCrit(h, STATEMENT_UNDERSTOOD);
  if (crit) return { ...refuse(leaf, 'crit', crit), ...about };
  if (!c.payload) return { ...refuse(leaf, 'payload_missing', 'a detached payload: the signature cannot be checked here'), ...about };
  const alg = scittAlgOfCose(h.get(COSE_HEADER.alg));
  if (!alg) return { ...refuse(leaf, 'unsupported_alg', `alg ${String(h.get(COSE_HEADER.alg)).slice(0, 20)} is not accepted`), ...about };
  const shape = notAStatement(h, typeof iss === 'string');
  if (shape) return { ...refuse(leaf, 'not_a_statement', shape), alg, ...about };
  const keys = candidateKeys(issuers, alg, h.get(COSE_HEADER.kid));
  if (keys.length === 0) return { ...refuse(leaf, 'unknown_key', `no trusted ${alg} issuer key`), alg, ...about };
  const tbs = sigStructure(c.protectedBytes, c.payload);
  if (!keys.some((k) => scittVerify(alg, k.publicKey, tbs, c.signature, opts.compute, opts.classical)))
    return { ...refuse(leaf, 'bad_statement_signature', `the issuer's ${alg} signature does not verify`), alg, ...about };
  return { ok: true, leaf, alg, ...about, payload: c.payload };
}
