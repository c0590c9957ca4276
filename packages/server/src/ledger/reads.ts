// Merkle computations over a store: plan the subtrees, fetch them in one round trip, assemble.
import {
  NodeSet,
  consistencyProof,
  encodeEntryBundle,
  encodeTile,
  inclusionProof,
  planReads,
  tileNodes,
  tileWidth,
  treeRoot,
  type TileId,
  type TreeReader,
} from '@svc/core/merkle';
import type { ConsistencyRead, EntrySubject, InclusionRead, LedgerReads } from './store.js';

/** Run a proof or root computation against the store with one batched read of what it needs. */
export async function readTree<T>(store: Pick<LedgerReads, 'nodes'>, run: (t: TreeReader) => T): Promise<T> {
  const ids = planReads(run);
  return run(new NodeSet(ids, await store.nodes(ids)));
}

/** Whether the log of `size` leaves holds a tree of `t` leaves (1 to `size`): the one rule for every size asked for. */
export function holdsTree(t: number, size: number): boolean {
  return Number.isSafeInteger(t) && t >= 1 && t <= size;
}

/** The log's size and the entry's lowest index (undefined when absent): a store may read both in one query. */
export type Locate = (subject: EntrySubject) => Promise<[number, number | undefined]>;

/**
 * An inclusion proof from the reads of one store, in one pass: a tree size out of range, or an
 * entry not in that tree, reads no path (the caller refuses or answers found:false).
 */
export async function readInclusion(
  store: Pick<LedgerReads, 'size' | 'nodes' | 'findByData' | 'findByLeafHash'>,
  subject: EntrySubject,
  treeSize: number | undefined,
  withRoot: boolean,
  locate: Locate = (s) => Promise.all([store.size(), s.data ? store.findByData(s.data) : store.findByLeafHash(s.leaf!)]),
): Promise<InclusionRead> {
  const [size, index] = await locate(subject);
  const t = treeSize ?? size;
  if (!holdsTree(t, size) || index === undefined || index >= t) return { size, index };
  const r = await readTree(store, (tr) => ({ proof: inclusionProof(tr, index, t), root: withRoot ? treeRoot(tr, t) : undefined }));
  return { size, index, proof: r.proof, ...(r.root ? { root: r.root } : {}) };
}

/**
 * The inclusion paths of entries at known indexes of the tree of `treeSize`, from one read of the
 * subtrees they need together (paths in one tree share most of their nodes). The caller has
 * checked every index against the tree.
 */
export function readPaths(store: Pick<LedgerReads, 'nodes'>, indexes: readonly number[], treeSize: number): Promise<Uint8Array[][]> {
  return readTree(store, (t) => indexes.map((i) => inclusionProof(t, i, treeSize)));
}

/** A consistency proof and both roots, or just the size when `first`/`second` are out of range. */
export async function readConsistency(
  store: Pick<LedgerReads, 'size' | 'nodes'>,
  first: number,
  second: number | undefined,
): Promise<ConsistencyRead> {
  const size = await store.size();
  const b = second ?? size;
  if (!holdsTree(first, size) || !holdsTree(b, size) || b < first) return { size };
  return {
    size,
    ...(await readTree(store, (t) => ({ proof: consistencyProof(t, first, b), oldRoot: treeRoot(t, first), newRoot: treeRoot(t, b) }))),
  };
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
