// The pure signing side of receipts: the exact inverse of verify/receipt.ts and verify/question.ts.
import { toHex } from '../encoding/bytes.js';
import { ML_DSA_87, SLH_DSA_SHA2_256F, sign, type KeyPair, type RandomSource } from '../crypto/algorithms.js';
import type { CryptoBackend } from '../crypto/backend.js';
import { framingMessage, receiptMessage, type FramingFlags } from '../wire/signed.js';
import type { JsonObject } from '../lib/json.js';
import type { Static } from 'typebox';
import type * as S from '../schemas/resources.js';
import { receiptKeyId } from './keys.js';
import type { Names } from '../names.js';
import type { EnvelopeMaker } from '../envelope/checker.js';

/**
 * The signed fields of a receipt before signing.
 *
 * @example
 * ```ts
 * const fields: ReceiptFields = { v: 1, model: 'm-1', answer_sha256: textSha256Hex('Paris.')!, ts: 1767225600 };
 * ```
 */
export interface ReceiptFields {
  v: 1 | 2;
  model: string;
  answer_sha256: string;
  ts: number;
  governance_flag?: string;
  /** Serialized only when false (wire-format s.3). */
  council_grounded?: boolean;
  prompt_sha256?: string;
  /** `message`: the answer is in the message form (wire-format s.15). */
  answer_form?: 'message';
  /** H(JCS) of the request's members beyond its messages (wire-format s.15). */
  request_sha256?: string;
}

/**
 * A signed receipt as it travels in a bundle.
 *
 * @example
 * ```ts
 * const r: ReceiptEnvelope = bundle.receipt;
 * console.log(r.algo, r.key_id, r.context);
 * ```
 */
export type ReceiptEnvelope = Static<typeof S.ReceiptEnvelope>;

/**
 * Options of signReceipt: a diversity key, randomness and a signing backend.
 *
 * @example
 * ```ts
 * const r = signReceipt(fields, K.answer, 'svc-provenance-v1', { slh: K.slh });
 * ```
 */
export interface SignOptions {
  /** Adds the SLH-DSA-SHA2-256f diversity signature (wire-format s.3b). */
  slh?: KeyPair;
  /** Hedged signing randomness; deterministic signing when absent (with noble). */
  random?: RandomSource;
  /** A synchronous backend to sign ML-DSA-87 and SLH-DSA with (the server's node:crypto). */
  crypto?: CryptoBackend;
  /**
   * JWS and COSE envelopes of the receipt core (wire-format s.12), made by `envelopeMaker` of
   * @svc/core/envelope, under the deployment's names.
   */
  envelopes?: { maker: EnvelopeMaker; names: Names };
}

/**
 * Sign receipt fields with ML-DSA-87 under `context` (wire-format s.3), adding an SLH-DSA diversity signature when `opts.slh` is given.
 *
 * @example
 * ```ts
 * const receipt = signReceipt({ v: 1, model: 'm-1', answer_sha256: textSha256Hex('Paris.')!, ts: 1767225600 }, K.answer, 'svc-provenance-v1');
 * ```
 */
export function signReceipt(fields: ReceiptFields, key: KeyPair, context: string, opts: SignOptions = {}): ReceiptEnvelope {
  if (key.alg !== ML_DSA_87) throw new TypeError('receipts are signed with ML-DSA-87');
  const core: JsonObject = { v: fields.v, model: fields.model, answer_sha256: fields.answer_sha256, ts: fields.ts };
  if (fields.governance_flag !== undefined) core.governance_flag = fields.governance_flag;
  if (fields.council_grounded === false) core.council_grounded = false;
  if (fields.prompt_sha256 !== undefined) core.prompt_sha256 = fields.prompt_sha256;
  if (fields.answer_form !== undefined) core.answer_form = fields.answer_form;
  if (fields.request_sha256 !== undefined) core.request_sha256 = fields.request_sha256;
  core.key_id = receiptKeyId(key.publicKey);
  core.context = context;
  core.algo = ML_DSA_87;
  const msg = receiptMessage(core);
  if (!msg) throw new TypeError('receipt fields are not canonicalisable JSON');
  const out = { ...core, sig: toHex(sign(key, msg, context, opts.random, opts.crypto)) } as ReceiptEnvelope;
  if (opts.slh) {
    if (opts.slh.alg !== SLH_DSA_SHA2_256F) throw new TypeError('diversity signatures are SLH-DSA-SHA2-256f');
    out.slh = { key_id: receiptKeyId(opts.slh.publicKey), sig: toHex(sign(opts.slh, msg, context, opts.random, opts.crypto)) };
  }
  const e = opts.envelopes;
  if (e) out.envelopes = e.maker(out, context, e.names, key, opts.random, opts.crypto);
  return out;
}

/**
 * Attach the v:2 framing disclosure, signed with the receipt key under the framing context.
 *
 * @example
 * ```ts
 * const v2 = signFraming(receipt, { persona: 0, voice: 0, attachment: 0, history_turns: 3 }, K.answer, 'svc-framing-v1');
 * ```
 */
export function signFraming(
  receipt: ReceiptEnvelope,
  flags: FramingFlags,
  key: KeyPair,
  framingContext: string,
  random?: RandomSource,
  crypto?: CryptoBackend,
): ReceiptEnvelope {
  const msg = framingMessage(receipt, flags);
  if (!msg) throw new TypeError('receipt is not canonicalisable');
  return { ...receipt, framing: { ...flags, sig: toHex(sign(key, msg, framingContext, random, crypto)) } };
}
