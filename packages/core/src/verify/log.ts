// The log layer of a ProofBundle (`tlogProof`, a c2sp.org/tlog-proof@v1 text): the answer's leaf
// (RFC 6962 leaf hash of its SHA-256, the ledger's leaf) is proved included under the checkpoint
// the proof carries. That is checked by everyone, with no keys: `ok`. Whether the checkpoint is
// signed by a log the verifier trusts, and cosigned by enough of its witnesses, needs a policy
// (`logPolicy`, made by `@svc/core/tlog`'s `logPolicy`) and is reported apart, as signerRecognized
// is apart from overallOk. A known key's line that fails is a failed layer.
import { bytesEqual, fromHex } from '../encoding/bytes.js';
import { leafHash } from '../merkle/hash.js';
import { rootFromInclusionProof } from '../merkle/verify.js';
import type { LogPolicyChecker } from '../tlog/policy-checker.js';
import { parseTlogProof } from '../tlog/proof-text.js';

export type { LogPolicyChecker };
import type { Static } from 'typebox';
import type * as S from '../schemas/verdicts.js';

/**
 * The log layer of a proof verdict: whether the tlog-proof leads to the checkpoint, who signed it, and whether the witness quorum was met.
 *
 * @example
 * ```ts
 * const res = await verifyBundle(bundle, { logPolicy: logPolicy(policyText) });
 * if (res.kind === 'svc-proof' && res.verdict.log) console.log(res.verdict.log.treeSize, res.verdict.log.quorumMet);
 * ```
 */
export type LogVerdict = Static<typeof S.LogVerdict>;

// WF-LOGGED
export function checkLog(proof: unknown, answerSha256: string | null, policy: LogPolicyChecker | null): LogVerdict {
  const v: LogVerdict = {
    present: true,
    ok: false,
    origin: null,
    index: null,
    treeSize: null,
    policyChecked: policy !== null,
    logRecognized: false,
    witnesses: 0,
    quorumMet: policy ? false : null,
  };
  if (typeof proof !== 'string') return v;
  let p: ReturnType<typeof parseTlogProof>;
  try {
    p = parseTlogProof(proof);
  } catch {
    return v;
  }
  Object.assign(v, { origin: p.parsed.origin, index: p.index, treeSize: p.parsed.size });
  const data = fromHex(answerSha256, 32);
  const root = data && p.index < p.parsed.size ? rootFromInclusionProof(p.index, p.parsed.size, leafHash(data), p.proof) : null;
  let ok = root !== null && bytesEqual(root, p.parsed.root);
  if (policy) {
    const s = policy.checkCheckpoint(p.note, p.parsed.origin);
    ok &&= s.signaturesOk;
    Object.assign(v, { logRecognized: s.logRecognized, witnesses: s.witnesses, quorumMet: s.logRecognized && s.quorumMet });
  }
  v.ok = ok;
  return v;
}
