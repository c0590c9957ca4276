// Merkle computations over a store: plan the subtrees, fetch them in one round trip, assemble.
import { NodeSet, planReads, treeRoot, type TreeReader } from '@svc/core';
import type { LedgerReads } from './store.js';

/** Run a proof or root computation against the store with one batched read of what it needs. */
export async function readTree<T>(store: Pick<LedgerReads, 'nodes'>, run: (t: TreeReader) => T): Promise<T> {
  const ids = planReads(run);
  return run(new NodeSet(ids, await store.nodes(ids)));
}

export function rootAt(store: Pick<LedgerReads, 'nodes'>, size: number): Promise<Uint8Array> {
  return readTree(store, (t) => treeRoot(t, size));
}
