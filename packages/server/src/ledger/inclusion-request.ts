// What an inclusion request asks for (interface.md, InclusionRequest): exactly one of the answer
// text, its SHA-256 or the leaf hash, and optionally a tree size. Read here once, by the ledger and
// by the verification pool, which reduces a large body off the event loop to its small normal form.
import { fromHex, textSha256, toHex } from '@svc/core/primitives';
import { LedgerError } from './errors.js';

/**
 * The request's subject: the entry's data (the answer's SHA-256) or its leaf hash; and the size
 * asked for, which the ledger checks against its own size (a tree size that was not a number is 0,
 * refused there exactly as any size out of range).
 */
export type InclusionQuery = ({ data: Uint8Array; leaf?: undefined } | { leaf: Uint8Array; data?: undefined }) & { treeSize?: number };

/**
 * Read an inclusion request; throws LedgerError('invalid_request') naming what is wrong.
 *
 * @example
 * ```ts
 * const q = inclusionQuery({ answer: 'Paris' }); // { data: sha256('Paris') }
 * ```
 */
export function inclusionQuery(req: unknown): InclusionQuery {
  if (typeof req !== 'object' || req === null || Array.isArray(req))
    throw new LedgerError('invalid_request', 'expected a JSON object with one of answer, answer_sha256 or leaf');
  const r = req as Record<string, unknown>;
  const given = ['answer', 'answer_sha256', 'leaf'].filter((k) => r[k] !== undefined);
  if (given.length !== 1) throw new LedgerError('invalid_request', 'supply exactly one of answer, answer_sha256 or leaf');
  const size = r.tree_size !== undefined ? { treeSize: typeof r.tree_size === 'number' ? r.tree_size : 0 } : {};
  if (given[0] === 'answer') {
    const data = typeof r.answer === 'string' ? textSha256(r.answer) : null;
    if (!data) throw new LedgerError('invalid_request', 'answer must be a string of well-formed Unicode');
    return { data, ...size };
  }
  if (given[0] === 'answer_sha256') {
    const data = fromHex(r.answer_sha256, 32);
    if (!data) throw new LedgerError('invalid_request', 'answer_sha256 must be 64 lowercase hex characters');
    return { data, ...size };
  }
  const leaf = fromHex(r.leaf, 32);
  if (!leaf) throw new LedgerError('invalid_request', 'leaf must be 64 lowercase hex characters');
  return { leaf, ...size };
}

/**
 * The same request in its small normal form (`answer_sha256` or `leaf`, and `tree_size`): a few
 * hundred bytes whatever was posted. A tree size that is not a number becomes 0, which the ledger
 * refuses exactly as it refuses the original.
 *
 * @example
 * ```ts
 * normalInclusionRequest({ answer: 'Paris', tree_size: 3 }); // { answer_sha256: '5dd2…', tree_size: 3 }
 * ```
 */
export function normalInclusionRequest(req: unknown): Record<string, string | number> {
  const q = inclusionQuery(req);
  const size: Record<string, number> = q.treeSize === undefined ? {} : { tree_size: q.treeSize };
  return q.data ? { answer_sha256: toHex(q.data), ...size } : { leaf: toHex(q.leaf!), ...size };
}
