// ProofBundle verification: receipt layer, question binding, pinned excerpt and bridge attestation,
// folded into one verdict by rule V5.
import { textSha256Hex } from '../encoding/hash.js';
import { fromHex } from '../encoding/bytes.js';
import { checkBridge } from './bridge.js';
import type { VerifyContext } from './context.js';
import { checkQuestion } from './question.js';
import { checkMessage } from './message.js';
import { checkReceipt, type AlgorithmRange, type ReceiptVerdict } from './receipt.js';
import { codePoints, has, isInt, isObj, type JsonObject } from '../lib/json.js';
import { checkLog, type LogVerdict } from './log.js';
import { createdOf, foldVerdict, type Facts, type Verified } from './verdict.js';
import type { Static } from 'typebox';
import type * as S from '../schemas/verdicts.js';

/**
 * Whether a pinned excerpt is the exact code-point slice of the answer (V7).
 *
 * @example
 * ```ts
 * const res = await verifyBundle(bundle);
 * if (res.kind === 'svc-proof') console.log(res.verdict.excerpt?.ok);
 * ```
 */
export type ExcerptVerdict = Static<typeof S.ExcerptVerdict>;

/**
 * The verdict of a ProofBundle (V5): the receipt layer, question binding, excerpt, model-plane and log layers.
 *
 * @example
 * ```ts
 * const res = await verifyBundle(bundle, { trustedKeys });
 * if (res.kind === 'svc-proof') {
 *   const v: ProofVerdict = res.verdict;
 *   console.log(v.receipt.sigOk, v.promptUnverified === true);
 * }
 * ```
 */
export type ProofVerdict = Static<typeof S.ProofVerdict>;

/**
 * What a record needs beyond the verdict, computed once during verification.
 *
 * @example
 * ```ts
 * const record = buildRecord(bundle, { generated }); // built from a proof's facts: answer hash, algorithms, log
 * ```
 */
export interface ProofFacts extends Facts {
  answerSha256: string | null;
  algorithms: string[];
  /** What a record may list in `algorithms`, whatever this verifier pins. */
  algorithmRange: AlgorithmRange;
  questionCarried: boolean;
  excerptCarried: boolean;
  /** The log layer, when present and ok: where the answer is logged and how it is witnessed. */
  logged: LogVerdict | null;
}

/**
 * Zero-based, end-exclusive code-point slice (wire-format s.5).
 *
 * @example
 * ```ts
 * excerptOk('Hello, world', { start: 7, end: 12, quote: 'world' }); // true
 * excerptOk('Hello, world', { start: 7, end: 12, quote: 'World' }); // false
 * ```
 */
export function excerptOk(answer: unknown, excerpt: unknown): boolean {
  if (typeof answer !== 'string' || !isObj(excerpt)) return false;
  const { start, end, quote } = excerpt;
  if (!isInt(start) || !isInt(end) || typeof quote !== 'string') return false;
  const cps = codePoints(answer);
  if (!(start >= 0 && start < end && end <= cps.length)) return false;
  return cps.slice(start, end).join('') === quote;
}

const sortedSet = (xs: string[]): string[] => [...new Set(xs)].sort();

/** The ML-DSA-87 key the bundle says signed its receipt: the one its SCITT statement must be signed with. */
function receiptKeyOf(b: JsonObject): Uint8Array | null {
  return isObj(b.receiptKey) ? fromHex(b.receiptKey.public_key_hex) : null;
}

export function verifyProofBundle(b: JsonObject, vc: VerifyContext): Verified<ProofVerdict, ProofFacts> {
  const answerHash = typeof b.answer === 'string' ? textSha256Hex(b.answer) : null;
  const rc = checkReceipt(b.receipt, b.receiptKey, answerHash, vc.names.contexts.answer, vc);
  const question = checkQuestion(b, rc, vc.names.contexts.framing, vc.compute);
  const receipt: ReceiptVerdict = { ...rc.verdict, ...question.receipt };
  const promptUnverified = question.unverified;

  let checks = 0;
  let layersOk = true;
  const algorithms = [...rc.algorithms];
  const verified = [...rc.algorithmsVerified];
  if (rc.verdict.present) {
    checks++;
    layersOk &&= rc.layerOk;
  }
  const verdict: ProofVerdict = { overallOk: false, checks: 0, receipt, signerRecognized: rc.recognized };
  // A receipt that says its answer is a message must hold one: else the receipt layer fails.
  const message = checkMessage(b.receipt, b.answer);
  if (message) {
    verdict.message = message;
    layersOk &&= message.ok;
  }
  if (has(b, 'attestation')) {
    const br = checkBridge(b.attestation, b.bridgeKeys, answerHash, vc.names.contexts.bridge, vc.compute, vc.pinnedBridge);
    verdict.bridge = br.verdict;
    checks++;
    layersOk &&= br.layerOk;
    // An attestation by keys this verifier does not pin verifies, but says nothing of origin.
    if (br.verdict.keyRecognized) algorithms.push(...br.algorithms);
    verified.push(...br.algorithms);
  }
  // V6: a bound question must match; an unbound one is reported, not failed.
  const questionOk = !(has(b, 'prompt') && receipt.promptBound && !receipt.promptOk);
  if (promptUnverified) verdict.promptUnverified = true;
  if (has(b, 'excerpt')) verdict.excerpt = { present: true, ok: excerptOk(b.answer, b.excerpt) }; // V7
  // V5: a present log layer must hold; it adds a condition, not a signed layer of its own.
  if (has(b, 'tlogProof')) verdict.log = checkLog(b.tlogProof, answerHash, vc.logPolicy);
  // V5 again: a SCITT statement, when checked, must hold; unchecked, it counts neither way.
  if (has(b, 'scitt')) verdict.scitt = vc.scitt ? vc.scitt(b.scitt, answerHash, receiptKeyOf(b), vc.compute) : { checked: false };
  const scittOk = !verdict.scitt?.checked || verdict.scitt.ok === true;
  verdict.checks = checks;
  Object.assign(
    verdict,
    foldVerdict(checks, layersOk, rc.recognized, questionOk, verdict.excerpt?.ok ?? true, (verdict.log?.ok ?? true) && scittOk),
  );
  return {
    verdict,
    facts: {
      created: createdOf(b),
      answerSha256: answerHash,
      algorithms: sortedSet(algorithms),
      algorithmRange: { base: sortedSet(rc.algorithmsBase), verified: sortedSet(verified) },
      questionCarried: has(b, 'prompt'),
      excerptCarried: has(b, 'excerpt'),
      logged: verdict.log?.ok ? verdict.log : null,
    },
  };
}
