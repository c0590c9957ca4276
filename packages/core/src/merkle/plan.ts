// Merkle reads for storage that answers in round trips (a database server): plan the complete
// subtrees a computation needs, fetch them in one query, then assemble from the fetched hashes.
// The proof code itself stays one synchronous definition (prove.ts); the plan is a dry run of it.
import { emptyRoot, isTreeSize, leafHash, nodeHash } from './hash.js';
import type { TreeReader } from './prove.js';

/**
 * A complete subtree: the 2^level leaves starting at leaf index * 2^level.
 *
 * @example
 * ```ts
 * const id: NodeId = { level: 1, index: 2 }; // the hash of leaves 4 and 5
 * ```
 */
export interface NodeId {
  level: number;
  index: number;
}

/**
 * A complete subtree with its hash, as a store keeps it.
 *
 * @example
 * ```ts
 * const { nodes } = integrate(0, [], [leafHash(utf8('a'))]);
 * const stored: StoredNode[] = nodes; // [{ level: 0, index: 0, hash }]
 * ```
 */
export interface StoredNode extends NodeId {
  hash: Uint8Array;
}

const key = (level: number, index: number): string => `${level}:${index}`;
const PLACEHOLDER = new Uint8Array(32);

/**
 * The subtrees `run` reads, in first-read order, without duplicates. Which subtrees the RFC 6962
 * algorithms read depends only on sizes and indices, never on hash values, so a dry run over
 * placeholders plans exactly what the real run will ask for.
 *
 * @example
 * ```ts
 * const ids = planReads((r) => inclusionProof(r, 5, 100)); // the subtrees the proof reads
 * const hashes = await db.readSubtrees(ids); // one round trip
 * const proof = inclusionProof(new NodeSet(ids, hashes), 5, 100);
 * ```
 */
export function planReads(run: (reader: TreeReader) => unknown): NodeId[] {
  const seen = new Set<string>();
  const out: NodeId[] = [];
  run({
    subtree(level, index) {
      const k = key(level, index);
      if (!seen.has(k)) {
        seen.add(k);
        out.push({ level, index });
      }
      return PLACEHOLDER;
    },
  });
  return out;
}

/**
 * A reader over fetched subtrees; asking for one that was not fetched is a planning bug.
 *
 * @example
 * ```ts
 * const ids = planReads((r) => treeRoot(r, 7));
 * const root = treeRoot(new NodeSet(ids, await fetchHashes(ids)), 7);
 * ```
 */
export class NodeSet implements TreeReader {
  private readonly map = new Map<string, Uint8Array>();

  constructor(ids: readonly NodeId[], hashes: readonly Uint8Array[]) {
    if (ids.length !== hashes.length) throw new RangeError('one hash per planned subtree');
    for (let i = 0; i < ids.length; i++) this.map.set(key(ids[i]!.level, ids[i]!.index), hashes[i]!);
  }

  subtree(level: number, index: number): Uint8Array {
    const h = this.map.get(key(level, index));
    if (!h) throw new RangeError(`subtree (${level}, ${index}) was not planned`);
    return h;
  }
}

/**
 * The perfect subtrees that make up a tree of `size` leaves, largest (leftmost) first.
 *
 * @example
 * ```ts
 * frontier(7); // [{ level: 2, index: 0 }, { level: 1, index: 2 }, { level: 0, index: 6 }]
 * ```
 */
export function frontier(size: number): NodeId[] {
  if (!isTreeSize(size)) throw new RangeError('invalid tree size');
  const out: NodeId[] = [];
  let start = 0;
  for (let level = Math.floor(Math.log2(Math.max(size, 1))) + 1; level >= 0; level--) {
    const n = 2 ** level;
    if (start + n <= size) {
      out.push({ level, index: start / n });
      start += n;
    }
  }
  return out;
}

/**
 * The two RFC 6962 hashes, replaceable by a faster implementation of the same functions (a server
 * passes its platform's native SHA-256); the default is the core's own.
 *
 * @example
 * ```ts
 * const hasher: MerkleHasher = { leaf: leafHash, node: nodeHash };
 * integrate(0, [], [utf8('a')].map(leafHash), hasher);
 * ```
 */
export interface MerkleHasher {
  leaf(data: Uint8Array): Uint8Array;
  node(left: Uint8Array, right: Uint8Array): Uint8Array;
}

const CORE_HASHER: MerkleHasher = { leaf: leafHash, node: nodeHash };

/**
 * What integrate computes for a batch: the completed subtrees to store, the new root and the new frontier.
 *
 * @example
 * ```ts
 * let state = { size: 0, frontier: [] as Uint8Array[] };
 * const batch = [leafHash(utf8('a')), leafHash(utf8('b'))];
 * const out: Integration = integrate(state.size, state.frontier, batch);
 * state = { size: state.size + batch.length, frontier: out.frontier };
 * ```
 */
export interface Integration {
  /** Every subtree the new leaves complete, level 0 (the leaf hashes) included. */
  nodes: StoredNode[];
  /** The root of the tree after the append. */
  root: Uint8Array;
  /** The frontier of the tree after the append (hashes of `frontier(newSize)`), for the next batch. */
  frontier: Uint8Array[];
}

/**
 * Append leaves (by data) to a tree of `size` leaves whose frontier hashes are given, as
 * `frontier(size)` orders them. Pure: the caller stores `nodes` and keeps `frontier`.
 *
 * @example
 * ```ts
 * const first = integrate(0, [], [leafHash(utf8('a'))]);
 * const second = integrate(1, first.frontier, [leafHash(utf8('b'))]);
 * bytesEqual(second.root, nodeHash(leafHash(utf8('a')), leafHash(utf8('b')))); // true
 * ```
 */
export function integrate(
  size: number,
  frontierHashes: readonly Uint8Array[],
  leaves: readonly Uint8Array[],
  hasher: MerkleHasher = CORE_HASHER,
): Integration {
  const ids = frontier(size);
  if (ids.length !== frontierHashes.length) throw new RangeError('the frontier does not match the tree size');
  const stack = ids.map((id, i) => ({ level: id.level, hash: frontierHashes[i]! }));
  const nodes: StoredNode[] = [];
  let n = size;
  for (const d of leaves) {
    let h = hasher.leaf(d);
    let level = 0;
    let index = n;
    nodes.push({ level, index, hash: h });
    while (stack.length > 0 && stack[stack.length - 1]!.level === level) {
      h = hasher.node(stack.pop()!.hash, h);
      level++;
      index = (index - 1) / 2;
      nodes.push({ level, index, hash: h });
    }
    stack.push({ level, hash: h });
    n++;
  }
  let root = stack.length > 0 ? stack[stack.length - 1]!.hash : emptyRoot();
  for (let k = stack.length - 2; k >= 0; k--) root = hasher.node(stack[k]!.hash, root);
  return { nodes, root, frontier: stack.map((s) => s.hash) };
}
