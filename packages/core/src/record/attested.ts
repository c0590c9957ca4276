// The `attested` summary (E4): every field is recomputed from the embedded proof by verification.
import type { ProofFacts, ProofVerdict } from '../verify/proof.js';
import type { RunVerdict } from '../verify/run.js';
import type { JsonObject } from '../lib/json.js';
import type { Static } from 'typebox';
import type * as S from '../schemas/resources.js';

/**
 * The `attested` summary of a record (E4): every field recomputed from the embedded proof by verification.
 *
 * @example
 * ```ts
 * const record = buildRecord(bundle, { generated: 1767225600, trustedKeys });
 * const a: Attested = record.attested;
 * console.log(a.algorithms, a.answer_sha256);
 * ```
 */
export type Attested = Static<typeof S.Attested>;

/** The receipt's own fields are attested only when its signature verified: nothing else signs them. */
function common(signed: boolean, recognized: boolean, receipt: JsonObject | null, sigOk: boolean, keyId: string): Attested {
  const byReceipt = signed && receipt !== null && sigOk;
  const a: Attested = {
    signed,
    signer_recognized: signed ? recognized : null,
    algorithms: [],
    council_grounded: byReceipt ? receipt.council_grounded !== false : null,
    signed_at: byReceipt && typeof receipt.ts === 'number' ? receipt.ts : null,
    question_attested: null,
    question_binding: null,
    quote_attested: null,
  };
  if (byReceipt && typeof receipt.governance_flag === 'string') a.governance_flag = receipt.governance_flag;
  if (sigOk) a.receipt_key_id = keyId;
  return a;
}

// E2: a proof that does not verify still gets its attested summary, signed:false, and notes why.
export function attestProof(bundle: JsonObject, verdict: ProofVerdict, facts: ProofFacts): { attested: Attested; notes: string[] } {
  const signed = verdict.overallOk;
  const r = verdict.receipt;
  const receipt = r.present && typeof bundle.receipt === 'object' ? (bundle.receipt as JsonObject) : null;
  const a = common(signed, verdict.signerRecognized, receipt, r.sigOk, r.keyId);
  a.algorithms = facts.algorithms;
  if (facts.answerSha256 !== null) a.answer_sha256 = facts.answerSha256;
  const notes: string[] = [];
  if (facts.questionCarried) {
    const binding = r.questionBinding;
    a.question_attested = signed && (binding === 'entire-input' || binding === 'current-message');
    a.question_binding = a.question_attested ? binding! : null;
    if (!a.question_attested) notes.push(questionNote(verdict));
  }
  if (facts.excerptCarried) {
    a.quote_attested = signed && verdict.excerpt?.ok === true;
    if (verdict.excerpt?.ok !== true) notes.push('quote_attested is false: the pinned quote is not an exact slice of the answer.');
  }
  // Where the answer is logged is attested only when the checkpoint was judged by the log's keys
  // (a policy): a path to a checkpoint anyone can sign says nothing of which log holds it.
  if (signed && facts.logged?.logRecognized)
    a.logged = { origin: facts.logged.origin!, index: facts.logged.index!, tree_size: facts.logged.treeSize! };
  else if (signed && facts.logged)
    notes.push("logged is absent: the proof's checkpoint was not checked against its log's keys (no log policy), so no log is attested.");
  if (!signed) notes.push('signed is false: the proof did not verify, so nothing in it is attested.');
  notes.push(...unpinnedNotes(verdict));
  return { attested: a, notes };
}

/** Signatures that verified by keys the verifier does not pin: left out of `algorithms`, and said so. */
function unpinnedNotes(v: ProofVerdict): string[] {
  const out: string[] = [];
  const d = v.receipt.diversity;
  if (d?.ok && !d.keyRecognized)
    out.push('algorithms leaves out SLH-DSA-SHA2-256f: the diversity signature verifies, but by a key this verifier does not pin.');
  if (v.bridge?.primaryOk && !v.bridge.keyRecognized)
    out.push('algorithms leaves out the model-plane attestation: it verifies, but by keys this verifier does not pin.');
  if (!v.receipt.present && v.overallOk)
    out.push('council_grounded and signed_at are null: the proof carries no receipt, and nothing else signs them.');
  return out;
}

function questionNote(v: ProofVerdict): string {
  const r = v.receipt;
  if (!r.present) return 'question_attested is false: the proof carries no receipt, so nothing attests the question.';
  if (!r.promptBound) return 'question_attested is false: legacy receipt without prompt_sha256; only the answer is evidence.';
  if (r.framing && !r.framing.ok)
    return 'question_attested is false: the framing disclosure of this v:2 receipt is missing or did not verify.';
  if (!r.promptOk) return 'question_attested is false: the receipt binds a different question; the question shown was altered.';
  return 'question_attested is false: the proof did not verify.';
}

export function attestRun(
  bundle: JsonObject,
  verdict: RunVerdict,
  algorithms: string[],
  answerSha256: string | null,
  methods: string[],
): { attested: Attested; notes: string[] } {
  const signed = verdict.overallOk;
  const r = verdict.receipt;
  const receipt = r.present && typeof bundle.receipt === 'object' ? (bundle.receipt as JsonObject) : null;
  const a = common(signed, verdict.signerRecognized, receipt, r.sigOk, r.keyId);
  a.algorithms = [...algorithms].sort();
  if (answerSha256 !== null) a.answer_sha256 = answerSha256;
  if (signed) a.step_verification = methods;
  const notes = signed ? [] : ['signed is false: the run evidence pack did not verify, so nothing in it is attested.'];
  return { attested: a, notes };
}
