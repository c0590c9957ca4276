// TranscriptBundle (V2, wire-format s.7): every turn verifies exactly as a ProofBundle.
import { SvcError } from '../errors.js';
import type { VerifyContext } from './context.js';
import { verifyProofBundle } from './proof.js';
import { isObj, type JsonObject } from '../lib/json.js';
import { createdOf, foldVerdict, type Verified } from './verdict.js';
import type { Static } from 'typebox';
import type * as S from '../schemas/verdicts.js';
import { MAX_TURNS } from '../limits.js';
export { MAX_TURNS };

// LIMIT-TURNS

/**
 * The verdict of a transcript (V2): every turn's proof verdict, passing only when every turn does.
 *
 * @example
 * ```ts
 * if (res.kind === 'svc-transcript') res.verdict.turns.filter((t) => !t.verdict.overallOk).map((t) => t.index);
 * ```
 */
export type TranscriptVerdict = Static<typeof S.TranscriptVerdict>;

export function verifyTranscript(b: JsonObject, vc: VerifyContext): Verified<TranscriptVerdict> {
  const turns = Array.isArray(b.turns) ? b.turns : [];
  if (turns.length > MAX_TURNS) throw new SvcError('too_many_turns', `a transcript holds at most ${MAX_TURNS} turns (got ${turns.length})`);
  const out: TranscriptVerdict = { overallOk: false, checks: 0, turns: [], signerRecognized: false };
  let allOk = true;
  let allPinned = true;
  turns.forEach((turn: unknown, index: number) => {
    const { verdict } = verifyProofBundle(isObj(turn) ? turn : {}, vc);
    // `kind` is optional on a turn, but a turn that names another kind is not an answer turn.
    const answerTurn = !(isObj(turn) && turn.kind !== undefined && turn.kind !== vc.names.kinds.proof);
    // The same rule, once more, with the turn's kind as a further condition.
    Object.assign(verdict, foldVerdict(verdict.checks, verdict.overallOk, verdict.signerRecognized, answerTurn));
    out.turns.push({ index, verdict });
    out.checks += verdict.checks;
    allOk &&= verdict.overallOk;
    allPinned &&= verdict.signerRecognized;
  });
  // The bundle carries every turn's question: one that no receipt verified is the bundle's too.
  if (out.turns.some((t) => t.verdict.promptUnverified)) out.promptUnverified = true;
  // Each turn is a layer; a transcript with no turn has nothing to pass.
  return { verdict: Object.assign(out, foldVerdict(out.checks, allOk, allPinned, turns.length > 0)), facts: { created: createdOf(b) } };
}
