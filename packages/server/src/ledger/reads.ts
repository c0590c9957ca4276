// Merkle computations over a store: plan the subtrees, fetch them in one round trip, assemble.
import { NodeSet, planReads, treeRoot, type TreeReader } from '@svc/core';
import { encodeEntryBundle, encodeTile, tileNodes, tileWidth, type TileId } from '@svc/core/tlog';
import type { LedgerReads } from './store.js';

/** Run a proof or root computation against the store with one batched read of what it needs. */
export async function readTree<T>(store: Pick<LedgerReads, 'nodes'>, run: (t: TreeReader) => T): Promise<T> {
  const ids = planReads(run);
  return run(new NodeSet(ids, await store.nodes(ids)));
}

export function rootAt(store: Pick<LedgerReads, 'nodes'>, size: number): Promise<Uint8Array> {
  return readTree(store, (t) => treeRoot(t, size));
}

// WF-TILES
/**
 * A tile or entry bundle (c2sp.org/tlog-tiles) of the tree at `size`, or null when the tree does
 * not hold that many of its hashes yet (a partial tile is never served as full, nor one beyond).
 */
export async function readTile(
  store: Pick<LedgerReads, 'nodes' | 'leaves'>,
  id: TileId,
  size: number,
  opts: { rangeReads?: boolean } = {},
): Promise<Uint8Array | null> {
  if (tileWidth(id.level === 'entries' ? 0 : id.level, id.index, size) < id.width) return null;
  const start = id.index * 256;
  if (id.level === 'entries') return encodeEntryBundle((await store.leaves(start, start + id.width)).map((l) => l.data));
  // `rangeReads` (PostgreSQL): a level-0 tile is one index range scan of leaf rows, where a list of
  // 256 ids is a join of 256 lookups. Embedded SQLite answers the 256 point lookups faster.
  if (id.level === 0 && opts.rangeReads) return encodeTile((await store.leaves(start, start + id.width)).map((l) => l.hash));
  return encodeTile(await store.nodes(tileNodes(id.level, id.index, id.width)));
}
