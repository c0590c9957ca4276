// Kind detection (wire-format s.0). Detection only looks at the identifying members; everything
// else about a document is judged by its verifier and lands in the verdict.
import { namesFor } from './names.js';
import { has, isObj } from './lib/json.js';

/**
 * The kinds of document the verifier knows, and `unknown`.
 *
 * @example
 * ```ts
 * const k: Kind = detectKind(JSON.parse(text)).kind;
 * ```
 */
export type Kind = 'proof' | 'transcript' | 'run' | 'export' | 'sth' | 'consistency' | 'record' | 'unknown';

/**
 * What detectKind found: the kind, its wire name, and whether it is a wrapped tree head.
 *
 * @example
 * ```ts
 * const d: Detection = detectKind(doc, 'svc');
 * if (d.kind === 'unknown') console.log('not a bundle');
 * ```
 */
export interface Detection {
  kind: Kind;
  /** The wire name, e.g. `svc-proof`; `unknown` when not recognised. */
  name: string;
  /** Set for a ledger response wrapping a nested `signed_tree_head` (refused by V10). */
  sthWrapper?: true;
}

/**
 * Which kind a parsed document is, from its identifying members only (wire-format s.0).
 *
 * @example
 * ```ts
 * detectKind({ kind: 'svc-proof' }).kind; // 'proof'
 * detectKind({ signed_tree_head: {} }).sthWrapper; // true: refused by V10
 * ```
 */
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
