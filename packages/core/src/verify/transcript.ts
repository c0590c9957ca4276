// TranscriptBundle (V2, wire-format s.7): every turn verifies exactly as a ProofBundle.
import { SvcError } from '../errors.js';
import type { VerifyContext } from './context.js';
import { verifyProofBundle, type ProofVerdict } from './proof.js';
import { isObj, type Obj } from './util.js';

export const MAX_TURNS = 200;

export interface TranscriptVerdict {
  overallOk: boolean;
  checks: number;
  turns: { index: number; verdict: ProofVerdict }[];
  signerRecognized: boolean;
}

export function verifyTranscript(b: Obj, vc: VerifyContext): TranscriptVerdict {
  const turns = Array.isArray(b.turns) ? b.turns : [];
  if (turns.length > MAX_TURNS) throw new SvcError('too_many_turns', `a transcript holds at most ${MAX_TURNS} turns (got ${turns.length})`);
  const out: TranscriptVerdict = { overallOk: turns.length > 0, checks: 0, turns: [], signerRecognized: turns.length > 0 };
  turns.forEach((turn: unknown, index: number) => {
    const { verdict } = verifyProofBundle(isObj(turn) ? turn : {}, vc);
    // `kind` is optional on a turn, but a turn that names another kind is not an answer turn.
    if (isObj(turn) && turn.kind !== undefined && turn.kind !== vc.names.kinds.proof) {
      verdict.overallOk = false;
      verdict.signerRecognized = false;
    }
    out.turns.push({ index, verdict });
    out.checks += verdict.checks;
    out.overallOk &&= verdict.overallOk;
    out.signerRecognized &&= verdict.signerRecognized;
  });
  return out;
}
