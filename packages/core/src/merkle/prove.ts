// Proof generation (RFC 6962 section 2.1.1/2.1.2) over a reader of complete-subtree hashes, so a
// store answers any proof at any tree size with O(log n) reads.
import { emptyRoot, isTreeSize, nodeHash, splitPoint } from './hash.js';

/**
 * Hashes of complete subtrees: `subtree(level, index)` is the root of the 2^level leaves starting
 * at leaf index * 2^level (level 0 is the leaf hash itself). Only ever asked for subtrees that lie
 * entirely inside the tree size being proven.
 */
export interface TreeReader {
  subtree(level: number, index: number): Uint8Array;
}

/** MTH of leaves [start, end); `start` is always aligned to the subtree sizes the RFC splits at. */
export function rangeHash(reader: TreeReader, start: number, end: number): Uint8Array {
  const n = end - start;
  if (n <= 0) return emptyRoot();
  const level = Math.log2(n);
  if (Number.isInteger(level) && start % n === 0) return reader.subtree(level, start / n);
  const k = splitPoint(n);
  return nodeHash(rangeHash(reader, start, start + k), rangeHash(reader, start + k, end));
}

export function treeRoot(reader: TreeReader, size: number): Uint8Array {
  if (!isTreeSize(size)) throw new RangeError('invalid tree size');
  return rangeHash(reader, 0, size);
}

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
