import type { VerifyContext } from './context.js';
import { runHash } from '../wire/signed.js';
import { checkReceipt, type AlgorithmRange } from './receipt.js';
import { has, isInt, isObj, type JsonObject } from '../lib/json.js';
import { createdOf, foldVerdict, type Facts, type Verified } from './verdict.js';
import type { Static } from 'typebox';
import type * as S from '../schemas/verdicts.js';

/**
 * The verdict of an autopilot run (V3): the receipt, the run hash, its steps and its budget.
 *
 * @example
 * ```ts
 * const res = await verifyBundle(run, { trustedKeys });
 * if (res.kind === 'svc-autopilot-run') console.log(res.verdict.run.budgetOk);
 * ```
 */
export type RunVerdict = Static<typeof S.RunVerdict>;

/** Step credits add up to spentCredits, which stays within budgetCredits (each when present). */
export function budgetOk(run: JsonObject): boolean {
  const steps = Array.isArray(run.steps) ? run.steps : null;
  if (!steps) return false;
  let sum = 0;
  for (const s of steps) {
    if (!isObj(s) || !isInt(s.credits) || s.credits < 0) return false;
    sum += s.credits;
  }
  if (has(run, 'spentCredits')) {
    if (!isInt(run.spentCredits) || run.spentCredits !== sum) return false;
    if (has(run, 'budgetCredits') && (!isInt(run.budgetCredits) || run.spentCredits > run.budgetCredits)) return false;
  }
  return true;
}

/** The per-step verification methods the run receipt binds (records attest them). */
export function stepMethods(run: unknown): string[] {
  if (!isObj(run) || !Array.isArray(run.steps)) return [];
  return run.steps.map((s: unknown) => (isObj(s) && typeof s.verify === 'string' ? s.verify : ''));
}

/**
 * What a record of a run needs beyond the verdict.
 *
 * @example
 * ```ts
 * const record = buildRecord(runBundle, { generated }); // attests the run hash and algorithms a run's facts carry
 * ```
 */
export interface RunFacts extends Facts {
  /** Algorithms whose signatures verified (a record attests them). */
  algorithms: string[];
  /** The run hash the receipt signs, when the run is an object. */
  answerSha256: string | null;
  /** What a record may list in `algorithms`, whatever this verifier pins. */
  algorithmRange: AlgorithmRange;
}

// V3: the whole run under the autopilot context, so a run receipt never passes as an answer.
export function verifyRun(b: JsonObject, vc: VerifyContext): Verified<RunVerdict, RunFacts> {
  const run = isObj(b.run) ? b.run : null;
  const shapeOk = !!run && typeof run.id === 'string' && typeof run.goal === 'string' && Array.isArray(run.steps);
  const hash = run ? runHash(run) : null;
  const rc = checkReceipt(b.receipt, b.receiptKey, hash, vc.names.contexts.autopilot, vc);
  const runV = {
    hashOk: rc.verdict.answerHashOk,
    steps: run && Array.isArray(run.steps) ? run.steps.length : 0,
    budgetOk: !!run && budgetOk(run),
  };
  const checks = rc.verdict.present ? 1 : 0;
  const { overallOk, signerRecognized } = foldVerdict(checks, rc.layerOk, rc.recognized, shapeOk, runV.budgetOk);
  return {
    verdict: { overallOk, checks, receipt: rc.verdict, run: runV, signerRecognized },
    facts: {
      created: createdOf(b),
      algorithms: rc.algorithms,
      answerSha256: hash,
      algorithmRange: { base: rc.algorithmsBase, verified: [...new Set(rc.algorithmsVerified)].sort() },
    },
  };
}
