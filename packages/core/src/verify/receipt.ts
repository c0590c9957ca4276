// The receipt layer shared by every signed kind: an ML-DSA-87 signature over the canonical receipt
// core, checked against the bundle's own key under the context the verifier pins for the kind.
import { bytesEqual, fromHex, isHex } from '../encoding/bytes.js';
import { sha256Hex } from '../encoding/hash.js';
import { decodeKeyHex } from '../encoding/keycache.js';
import { ML_DSA_87, SLH_DSA_SHA2_256F, verifyMlDsa87, verifySlhDsa } from '../crypto/algorithms.js';
import type { VerifyContext } from './context.js';
import { receiptMessage } from '../wire/signed.js';
import { has, isInt, isObj, type JsonObject } from '../lib/json.js';
import type { Static } from 'typebox';
import type * as S from '../schemas/verdicts.js';

/**
 * The SLH-DSA diversity signature of a receipt: present, valid, and whether by a pinned key.
 *
 * @example
 * ```ts
 * if (res.kind === 'svc-proof') console.log(res.verdict.receipt.diversity?.keyRecognized);
 * ```
 */
export type DiversityVerdict = Static<typeof S.DiversityVerdict>;

/**
 * A v:2 receipt's signed framing disclosure: what else the council read beside the question.
 *
 * @example
 * ```ts
 * if (res.kind === 'svc-proof' && res.verdict.receipt.framing?.ok) console.log(res.verdict.receipt.framing.historyTurns);
 * ```
 */
export type FramingVerdict = Static<typeof S.FramingVerdict>;

/**
 * A receipt's signed request disclosure (wire-format s.15): what the model read beyond the messages.
 *
 * @example
 * ```ts
 * if (res.kind === 'svc-proof' && res.verdict.receipt.request?.ok) console.log(res.verdict.receipt.request.members);
 * ```
 */
export type RequestVerdict = Static<typeof S.RequestVerdict>;

/**
 * What a verified receipt binds of the question: nothing, the entire input, or only the current message (wire-format s.4).
 *
 * @example
 * ```ts
 * const binding: QuestionBinding | undefined = res.kind === 'svc-proof' ? res.verdict.receipt.questionBinding : undefined;
 * ```
 */
export type QuestionBinding = NonNullable<ReceiptVerdict['questionBinding']>;

/**
 * The receipt layer every signed kind carries: answer hash, ML-DSA-87 signature, question and framing, diversity.
 *
 * @example
 * ```ts
 * if (res.kind === 'svc-proof') {
 *   const r: ReceiptVerdict = res.verdict.receipt;
 *   console.log(r.answerHashOk, r.sigOk, r.keyId);
 * }
 * ```
 */
export type ReceiptVerdict = Static<typeof S.ReceiptVerdict>;

/**
 * The range a record's `algorithms` may take whatever the verifier pins: `base`, the receipt's own
 * signature (it needs no pin to verify), and `verified`, every signature that verified, pinned or not.
 *
 * @example
 * ```ts
 * const { base, verified }: AlgorithmRange = { base: ['ML-DSA-87'], verified: ['ML-DSA-87', 'SLH-DSA-SHA2-256f'] };
 * ```
 */
export interface AlgorithmRange {
  base: string[];
  verified: string[];
}

export interface ReceiptCheck {
  verdict: ReceiptVerdict;
  /** sigOk and the key is pinned for this context. */
  recognized: boolean;
  /** present, answer hash, signature and (when carried) diversity signature all hold. */
  layerOk: boolean;
  /** The verified receipt key, for the framing signature. */
  publicKey: Uint8Array | null;
  /** Algorithms whose signatures verified in this layer. */
  algorithms: string[];
  /** The receipt's own signature's algorithm when it verified: no pin is needed for it. */
  algorithmsBase: string[];
  /** Every algorithm whose signature verified here, pinned or not (what a record may claim at most). */
  algorithmsVerified: string[];
  receipt: JsonObject | null;
}

function wellFormed(r: JsonObject): boolean {
  return (
    (r.v === 1 || r.v === 2) &&
    typeof r.model === 'string' &&
    isHex(r.answer_sha256, 32) &&
    isInt(r.ts) &&
    typeof r.sig === 'string' &&
    isHex(r.key_id, 32) &&
    typeof r.context === 'string' &&
    r.algo === ML_DSA_87 &&
    (!has(r, 'council_grounded') || typeof r.council_grounded === 'boolean') &&
    (!has(r, 'governance_flag') || typeof r.governance_flag === 'string') &&
    (!has(r, 'answer_form') || typeof r.answer_form === 'string') &&
    (!has(r, 'request_sha256') || isHex(r.request_sha256, 32))
  );
}

function keyBytes(key: unknown, keyId: unknown): Uint8Array | null {
  if (!isObj(key) || key.algo !== ML_DSA_87) return null;
  const pk = decodeKeyHex(key.public_key_hex, 2592);
  // A key_id is never trusted: both the key's and the receipt's must equal the recomputed one.
  if (!pk || key.key_id !== pk.id || keyId !== pk.id) return null;
  return pk.bytes;
}

function checkDiversity(r: JsonObject, key: unknown, message: Uint8Array | null, context: string, vc: VerifyContext): DiversityVerdict {
  const slh = r.slh;
  const keyId = isObj(slh) && typeof slh.key_id === 'string' ? slh.key_id : '';
  if (!isObj(slh) || !message) return { present: true, ok: false, keyId, keyRecognized: false };
  const sig = fromHex(slh.sig);
  const pinned: Uint8Array[] = vc.pinned.filter((p) => p.algo === SLH_DSA_SHA2_256F).map((p) => p.publicKey);
  const own = isObj(key) ? fromHex(key.slh_public_key_hex, 64) : null;
  const pk = [...pinned, ...(own ? [own] : [])].find((c) => sha256Hex(c) === slh.key_id);
  const ok = !!pk && !!sig && verifySlhDsa(pk, message, sig, context, vc.compute);
  return { present: true, ok, keyId, keyRecognized: ok && pinned.some((p) => bytesEqual(p, pk!)) };
}

/**
 * Verify a receipt against `expectedHash` (the hex SHA-256 of whatever this kind signs as its
 * answer) under the pinned `context`.
 */
export function checkReceipt(
  receipt: unknown,
  key: unknown,
  expectedHash: string | null,
  context: string,
  vc: VerifyContext,
): ReceiptCheck {
  if (!isObj(receipt)) {
    const verdict: ReceiptVerdict = {
      present: false,
      answerHashOk: false,
      sigOk: false,
      keyId: '',
      councilGrounded: true,
      promptBound: false,
      promptOk: true,
    };
    return {
      verdict,
      recognized: false,
      layerOk: false,
      publicKey: null,
      algorithms: [],
      algorithmsBase: [],
      algorithmsVerified: [],
      receipt: null,
    };
  }
  const r = receipt;
  const answerHashOk = expectedHash !== null && r.answer_sha256 === expectedHash;
  const message = receiptMessage(r);
  let sigOk = false;
  let pk: Uint8Array | null = null;
  if (wellFormed(r) && message) {
    pk = keyBytes(key, r.key_id);
    const sig = fromHex(r.sig);
    sigOk = !!pk && !!sig && verifyMlDsa87(pk, message, sig, context, vc.compute);
  }
  const verdict: ReceiptVerdict = {
    present: true,
    answerHashOk,
    sigOk,
    keyId: typeof r.key_id === 'string' ? r.key_id : '',
    councilGrounded: r.council_grounded !== false,
    promptBound: has(r, 'prompt_sha256'),
    promptOk: true,
  };
  /** Algorithms a record may attest: the receipt's own, and a diversity signature by a pinned key. */
  const algorithms = sigOk ? [ML_DSA_87] : [];
  let diversityOk = true;
  if (has(r, 'slh')) {
    verdict.diversity = checkDiversity(r, key, message, context, vc);
    diversityOk = verdict.diversity.ok;
    // Records list a diversity signature only when a pinned key made it: anyone can add their own.
    if (verdict.diversity.keyRecognized) algorithms.push(SLH_DSA_SHA2_256F);
  }
  // Envelopes sign the same core again with the same key (and an Ed25519 key the bundle names):
  // carried, they are a layer of their own, and one that fails fails the receipt (V5).
  let envelopesOk = true;
  const recognized = sigOk && !!pk && vc.pinned.some((p) => p.algo === ML_DSA_87 && p.context === context && bytesEqual(p.publicKey, pk!));
  if (has(r, 'envelopes')) {
    // The Ed25519 key is the bundle's own word: it proves integrity, and origin only when pinned.
    const ed = isObj(key) && isHex(key.ed25519_public_key_hex, 32) ? fromHex(key.ed25519_public_key_hex, 32) : null;
    const keys = { ...(sigOk && pk ? { 'ML-DSA-87': pk } : {}), ...(ed ? { Ed25519: ed } : {}) };
    const pinnedEd = !!ed && vc.pinnedEnvelope.some((p) => bytesEqual(p, ed));
    verdict.envelopes = vc.envelopes
      ? vc.envelopes(r, context, vc.names, keys, vc.compute, { 'ML-DSA-87': recognized, Ed25519: pinnedEd })
      : { checked: false };
    envelopesOk = verdict.envelopes.checked ? verdict.envelopes.ok === true : true;
  }
  return {
    verdict,
    recognized,
    layerOk: answerHashOk && sigOk && diversityOk && envelopesOk,
    publicKey: sigOk ? pk : null,
    algorithms,
    algorithmsBase: sigOk ? [ML_DSA_87] : [],
    algorithmsVerified: [...(sigOk ? [ML_DSA_87] : []), ...(verdict.diversity?.ok ? [SLH_DSA_SHA2_256F] : [])],
    receipt: r,
  };
}
