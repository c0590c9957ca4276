// Proof generation (RFC 6962 section 2.1.1/2.1.2) over a reader of complete-subtree hashes, so a
// store answers any proof at any tree size with O(log n) reads.
import { emptyRoot, isTreeSize, nodeHash, splitPoint } from './hash.js';

/**
 * Hashes of complete subtrees: `subtree(level, index)` is the root of the 2^level leaves starting
 * at leaf index * 2^level (level 0 is the leaf hash itself). Only ever asked for subtrees that lie
 * entirely inside the tree size being proven.
 *
 * @example
 * ```ts
 * const reader: TreeReader = { subtree: (level, index) => store.get(`${level}/${index}`)! };
 * const root = treeRoot(reader, 10);
 * ```
 */
export interface TreeReader {
  subtree(level: number, index: number): Uint8Array;
}

/**
 * MTH of leaves [start, end); `start` is always aligned to the subtree sizes the RFC splits at.
 *
 * @example
 * ```ts
 * const tree = new MemoryTree();
 * for (const e of ['a', 'b', 'c', 'd']) tree.appendData(utf8(e));
 * bytesEqual(rangeHash(tree, 0, 4), treeRoot(tree, 4)); // true
 * ```
 */
export function rangeHash(reader: TreeReader, start: number, end: number): Uint8Array {
  const n = end - start;
  if (n <= 0) return emptyRoot();
  const level = Math.log2(n);
  if (Number.isInteger(level) && start % n === 0) return reader.subtree(level, start / n);
  const k = splitPoint(n);
  return nodeHash(rangeHash(reader, start, start + k), rangeHash(reader, start + k, end));
}

/**
 * The RFC 6962 root of the first `size` leaves.
 *
 * @example
 * ```ts
 * const root = treeRoot(tree, tree.size);
 * ```
 */
export function treeRoot(reader: TreeReader, size: number): Uint8Array {
  if (!isTreeSize(size)) throw new RangeError('invalid tree size');
  return rangeHash(reader, 0, size);
}

/**
 * The RFC 6962 inclusion proof of leaf `index` in the tree of `size` leaves.
 *
 * @example
 * ```ts
 * const proof = inclusionProof(tree, 2, 8);
 * verifyInclusion(2, 8, tree.leaf(2)!, proof, treeRoot(tree, 8)); // true
 * ```
 */
export function inclusionProof(reader: TreeReader, index: number, size: number): Uint8Array[] {
  if (!isTreeSize(index) || !isTreeSize(size) || index >= size) throw new RangeError('index out of range');
  const out: Uint8Array[] = [];
  const path = (m: number, start: number, end: number): void => {
    const n = end - start;
    if (n <= 1) return;
    const k = splitPoint(n);
    if (m < k) {
      path(m, start, start + k);
      out.push(rangeHash(reader, start + k, end));
    } else {
      path(m - k, start + k, end);
      out.push(rangeHash(reader, start, start + k));
    }
  };
  path(index, 0, size);
  return out;
}

/**
 * The RFC 6962 consistency proof between the trees of `first` and `second` leaves.
 *
 * @example
 * ```ts
 * const proof = consistencyProof(tree, 3, 8);
 * verifyConsistency(3, 8, treeRoot(tree, 3), treeRoot(tree, 8), proof); // true
 * ```
 */
export function consistencyProof(reader: TreeReader, first: number, second: number): Uint8Array[] {
  if (!isTreeSize(first) || !isTreeSize(second) || first < 1 || first > second) throw new RangeError('sizes out of range');
  const out: Uint8Array[] = [];
  const sub = (m: number, start: number, end: number, complete: boolean): void => {
    const n = end - start;
    if (m === n) {
      if (!complete) out.push(rangeHash(reader, start, end));
      return;
    }
    const k = splitPoint(n);
    if (m <= k) {
      sub(m, start, start + k, complete);
      out.push(rangeHash(reader, start + k, end));
    } else {
      sub(m - k, start + k, end, false);
      out.push(rangeHash(reader, start, start + k));
    }
  };
  sub(first, 0, second, true);
  return out;
}
