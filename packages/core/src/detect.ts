// Kind detection (wire-format s.0). Detection only looks at the identifying members; everything
// else about a document is judged by its verifier and lands in the verdict.
import { namesFor } from './names.js';
import { has, isObj } from './lib/json.js';

export type Kind = 'proof' | 'transcript' | 'run' | 'export' | 'sth' | 'consistency' | 'record' | 'unknown';

export interface Detection {
  kind: Kind;
  /** The wire name, e.g. `svc-proof`; `unknown` when not recognised. */
  name: string;
  /** Set for a ledger response wrapping a nested `signed_tree_head` (refused by V10). */
  sthWrapper?: true;
}

export function detectKind(input: unknown, service?: string): Detection {
  const n = namesFor(service);
  if (!isObj(input)) return { kind: 'unknown', name: 'unknown' };
  // A wrapper has no signature of its own; refuse it whatever else it carries.
  if (has(input, 'signed_tree_head')) return { kind: 'unknown', name: 'unknown', sthWrapper: true };
  if (has(input, 'schema')) {
    return input.schema === n.kinds.record ? { kind: 'record', name: n.kinds.record } : { kind: 'unknown', name: 'unknown' };
  }
  const k = input.kind;
  if (k === n.kinds.proof) return { kind: 'proof', name: k };
  if (k === n.kinds.transcript) return { kind: 'transcript', name: k };
  if (k === n.kinds.run) return { kind: 'run', name: k };
  if (k === n.kinds.consistency) return { kind: 'consistency', name: k };
  if (has(input, 'kind')) return { kind: 'unknown', name: 'unknown' };
  if (isObj(input.proof) && input.proof.kind === n.kinds.export) return { kind: 'export', name: n.kinds.export };
  if (typeof input.signed === 'string' && isObj(input.receipt) && isObj(input.key)) return { kind: 'sth', name: n.kinds.sth };
  return { kind: 'unknown', name: 'unknown' };
}
