// A trust policy as verifyBundle's log layer uses it (`verifyBundle(b, { logPolicy: logPolicy(text) })`):
// which lines of a checkpoint are by the policy's logs (named for its origin) and witnesses, whether
// each verifies, and whether the quorum is met. Kept out of the main entry, which needs no
// signature code for bundles without a log layer.
import type { Note } from './note.js';
import { checkSignature } from './signatures.js';
import { parsePolicy, quorumMet, type Policy } from './policy.js';

/**
 * Judges a checkpoint's signatures under a trust policy; made by `@svc/core/tlog`'s `logPolicy`.
 *
 * @example
 * ```ts
 * const checker: LogPolicyChecker = logPolicy(policyText);
 * await verifyBundle(bundle, { logPolicy: checker });
 * ```
 */
export interface LogPolicyChecker {
  checkCheckpoint(note: Note, origin: string): { signaturesOk: boolean; logRecognized: boolean; witnesses: number; quorumMet: boolean };
}

/**
 * A LogPolicyChecker from a witness policy (C2SP tlog-witness policy text): judges a proof bundle's log layer.
 *
 * @example
 * ```ts
 * const res = await verifyBundle(bundle, { trustedKeys, logPolicy: logPolicy(policyText) });
 * if (res.kind === 'svc-proof') console.log(res.verdict.log?.quorumMet);
 * ```
 */
export function logPolicy(policy: Policy | string): LogPolicyChecker {
  const p = typeof policy === 'string' ? parsePolicy(policy) : policy;
  const witnesses = [...p.witnesses.values()].map((w) => w.key);
  return {
    checkCheckpoint(note, origin) {
      const logs = p.logs.map((l) => l.key).filter((k) => k.name === origin);
      let signaturesOk = true;
      let logRecognized = false;
      const witnessed = new Set<string>();
      for (const s of note.signatures) {
        for (const k of [...logs, ...witnesses]) {
          if (k.name !== s.name || k.id !== s.id) continue;
          const ok = checkSignature(k.type, k.name, k.publicKey, note.text, s.signature, k.raw).ok;
          if (!ok) signaturesOk = false;
          else if (logs.includes(k)) logRecognized = true;
          else witnessed.add(k.vkey);
        }
      }
      return { signaturesOk, logRecognized, witnesses: witnessed.size, quorumMet: quorumMet(p, witnessed) };
    },
  };
}
