// Rule V5 and the recognition rule, written once for every kind: a verdict passes only when at
// least one signed layer was checked and every checked layer, and every further condition of its
// kind, holds; its signer is recognised only when it passes and its keys are pinned.
export interface BaseVerdict {
  overallOk: boolean;
  checks: number;
  signerRecognized: boolean;
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
