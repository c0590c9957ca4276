// Question binding (wire-format s.4): a v:1 receipt binds the question by hash; a v:2 receipt also
// needs a separately signed framing disclosure saying what else the council read.
import { fromHex, isHex } from '../encoding/bytes.js';
import { textSha256Hex } from '../encoding/hash.js';
import { verifyMlDsa87, type SyncVerify } from '../crypto/algorithms.js';
import type { FramingVerdict, QuestionBinding, ReceiptCheck, ReceiptVerdict } from './receipt.js';
import { framingMessage, requestSha256, type FramingFlags } from '../wire/signed.js';

export type { FramingFlags };
import { has, isNonNegInt, isObj, type JsonObject } from '../lib/json.js';

const bit = (x: unknown): x is 0 | 1 => x === 0 || x === 1;

function checkFraming(receipt: JsonObject, publicKey: Uint8Array | null, context: string, compute: SyncVerify): FramingVerdict {
  const f = receipt.framing;
  if (!has(receipt, 'framing')) return { present: false, ok: false };
  if (!isObj(f) || !bit(f.persona) || !bit(f.voice) || !bit(f.attachment) || !isNonNegInt(f.history_turns)) {
    return { present: true, ok: false };
  }
  const flags: FramingFlags = { persona: f.persona, voice: f.voice, attachment: f.attachment, history_turns: f.history_turns };
  const msg = framingMessage(receipt, flags);
  const sig = fromHex(f.sig);
  const ok = !!publicKey && !!msg && !!sig && verifyMlDsa87(publicKey, msg, sig, context, compute);
  if (!ok) return { present: true, ok: false };
  return {
    present: true,
    ok: true,
    persona: flags.persona,
    voice: flags.voice,
    attachment: flags.attachment,
    historyTurns: flags.history_turns,
  };
}

/** What the question adds to a receipt verdict, and whether the question is unverified. */
export interface QuestionCheck {
  /** Members of the receipt verdict the question decides (framing before questionBinding, as answered). */
  receipt: Partial<Pick<ReceiptVerdict, 'promptOk' | 'framing' | 'request' | 'questionBinding'>>;
  /** No signature covers the question shown (V6: reported, not failed). */
  unverified: boolean;
}

// V6: attested only when bound; unbound is reported (promptUnverified), a bound mismatch fails.
/** Judge a bundle's question against its checked receipt; returns values, never changes `rc`. */
export function checkQuestion(bundle: JsonObject, rc: ReceiptCheck, framingContext: string, compute: SyncVerify): QuestionCheck {
  if (!has(bundle, 'prompt')) return { receipt: {}, unverified: false };
  const v = rc.verdict;
  const r = rc.receipt;
  if (!v.present || !r || !v.promptBound) return { receipt: { questionBinding: 'none' }, unverified: true };
  const prompt = bundle.prompt;
  const hashOk = typeof prompt === 'string' && isHex(r.prompt_sha256, 32) && r.prompt_sha256 === textSha256Hex(prompt);
  let binding: QuestionBinding = 'entire-input';
  let ok = hashOk;
  const out: QuestionCheck['receipt'] = {};
  if (r.v === 2) {
    const framing = checkFraming(r, rc.publicKey, framingContext, compute);
    out.framing = framing;
    ok = hashOk && framing.ok;
    if (framing.ok && (framing.persona || framing.voice || framing.attachment || framing.historyTurns)) binding = 'current-message';
  }
  // A disclosed request (tools, a response format...) means the model read more than the question:
  // never the entire input, and the disclosure must be the one signed, as the framing must.
  if (has(r, 'request_sha256')) {
    const reqOk = isHex(r.request_sha256, 32) && has(bundle, 'request') && requestSha256(bundle.request) === r.request_sha256;
    out.request = reqOk
      ? { present: true, ok: true, members: Object.keys(bundle.request as JsonObject).sort() }
      : { present: true, ok: false };
    ok &&= reqOk;
    binding = 'current-message';
  }
  out.promptOk = ok;
  // The question is attested only by a receipt whose own signature holds.
  out.questionBinding = ok && v.sigOk ? binding : 'none';
  return { receipt: out, unverified: !(ok && v.sigOk) };
}
