// Kind detection (wire-format s.0). Detection only looks at the identifying members; everything
// else about a document is judged by its verifier and lands in the verdict.
import { KINDS, type Kind } from './kinds.js';
import { namesFor } from './names.js';
import { has, isObj } from './lib/json.js';

export type { Kind };

const BY_KIND_MEMBER = KINDS.filter((k) => k.detect === 'kind');
const BY_SCHEMA = KINDS.filter((k) => k.detect === 'schema');
const BY_NESTED = KINDS.filter((k) => k.detect === 'nested');
const BY_SHAPE = KINDS.filter((k) => k.detect === 'shape');

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
    const k = BY_SCHEMA.find((e) => input.schema === n.kinds[e.kind]);
    return k ? { kind: k.kind, name: n.kinds[k.kind] } : { kind: 'unknown', name: 'unknown' };
  }
  const byMember = BY_KIND_MEMBER.find((e) => input.kind === n.kinds[e.kind]);
  if (byMember) return { kind: byMember.kind, name: n.kinds[byMember.kind] };
  if (has(input, 'kind')) return { kind: 'unknown', name: 'unknown' };
  const nested = isObj(input.proof) ? BY_NESTED.find((e) => (input.proof as { kind?: unknown }).kind === n.kinds[e.kind]) : undefined;
  if (nested) return { kind: nested.kind, name: n.kinds[nested.kind] };
  // A signed tree head is known by its members alone: its text, its receipt, its key.
  const shape = BY_SHAPE[0];
  if (shape && typeof input.signed === 'string' && isObj(input.receipt) && isObj(input.key))
    return { kind: shape.kind, name: n.kinds[shape.kind] };
  return { kind: 'unknown', name: 'unknown' };
}
