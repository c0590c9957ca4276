// Rule V5 and the recognition rule, written once for every kind: a verdict passes only when at
// least one signed layer was checked and every checked layer, and every further condition of its
// kind, holds; its signer is recognised only when it passes and its keys are pinned.
import { isInt, isObj } from '../lib/json.js';
import type { Static } from 'typebox';
import type * as S from '../schemas/verdicts.js';

/**
 * What every verdict has: whether it passes (V5), how many signed layers were checked, and whether the signer is pinned.
 *
 * @example
 * ```ts
 * const v: BaseVerdict = (await verifyBundle(text, { trustedKeys })).verdict;
 * if (v.overallOk && v.signerRecognized) console.log('verifies, by a key you pin');
 * ```
 */
export type BaseVerdict = Static<typeof S.BaseVerdict>;

/**
 * What every verification learns beyond its verdict.
 *
 * @example
 * ```ts
 * const { facts } = verifyProofBundle(bundle, context); // facts.created: the document's own time, when it has one
 * ```
 */
export interface Facts {
  /** The document's `created` (Unix seconds) where its kind carries one, else null. */
  created: number | null;
}

/**
 * The one contract of every kind's verifier, `(document, context) => Verified`: looked up by kind
 * in dispatch.ts, so a kind is added by one entry there.
 *
 * @example
 * ```ts
 * const table: Record<string, (doc: object, vc: unknown) => Verified<BaseVerdict>> = {}; // the dispatcher's shape
 * ```
 */
export interface Verified<V extends BaseVerdict, F extends Facts = Facts> {
  verdict: V;
  facts: F;
}

export function createdOf(o: unknown): number | null {
  return isObj(o) && isInt(o.created) ? o.created : null;
}

export function foldVerdict(
  checks: number,
  layersOk: boolean,
  keysPinned: boolean,
  ...conditions: boolean[]
): Pick<BaseVerdict, 'overallOk' | 'signerRecognized'> {
  const overallOk = checks > 0 && layersOk && conditions.every((c) => c);
  return { overallOk, signerRecognized: overallOk && keysPinned };
}
