// Subtrees of an RFC 6962 tree and their consistency proofs, as draft-ietf-plants-merkle-tree-certs
// defines them (section 4: a subtree is [start, end) with start a multiple of BIT_CEIL(end - start);
// section 4.4: a proof that such a subtree, with a given hash, sits at those positions in the tree
// of size n with a given root). tlog-witness's sign-subtree takes these proofs, and the
// subtree/v1 cosignature signs such a subtree. Arithmetic, not bit operations: sizes pass 2^31.
import { bytesEqual } from '../encoding/bytes.js';
import { isTreeSize, nodeHash, splitPoint } from './hash.js';
import { rangeHash, type TreeReader } from './prove.js';

/** The smallest power of two at least n (n >= 1). */
function bitCeil(n: number): number {
  let k = 1;
  while (k < n) k *= 2;
  return k;
}

/**
 * Whether `[start, end)` is a subtree (draft-ietf-plants-merkle-tree-certs section 4.1): 0 <= start
 * < end, both safe integers, and start a multiple of the smallest power of two at least end - start.
 *
 * @example
 * ```ts
 * isSubtree(8, 13); // true
 * isSubtree(1, 3); // false: 1 is not a multiple of 2
 * ```
 */
export function isSubtree(start: number, end: number): boolean {
  return isTreeSize(start) && isTreeSize(end) && start < end && start % bitCeil(end - start) === 0;
}

/** The split of the window [ws, we): its left child is [ws, ws + splitPoint(we - ws)). */
const mid = (ws: number, we: number): number => ws + splitPoint(we - ws);

/**
 * The proof that the subtree `[start, end)` is part of the tree of `size` leaves
 * (SUBTREE_PROOF, draft-ietf-plants-merkle-tree-certs section 4.4.1), read from a tree of at least
 * `size` leaves.
 *
 * @example
 * ```ts
 * const proof = subtreeProof(tree, 8, 13, 14); // 4 hashes
 * verifySubtreeProof(8, 13, 14, proof, rangeHash(tree, 8, 13), treeRoot(tree, 14)); // true
 * ```
 */
export function subtreeProof(reader: TreeReader, start: number, end: number, size: number): Uint8Array[] {
  if (!isSubtree(start, end) || !isTreeSize(size) || end > size) throw new RangeError('not a subtree of that tree');
  const out: Uint8Array[] = [];
  // `known`: the verifier holds the window's hash already (the subtree itself), so it is not sent.
  const sub = (s: number, ws: number, we: number, known: boolean): void => {
    if (s === ws && end === we) {
      if (!known) out.push(rangeHash(reader, ws, we));
      return;
    }
    const k = mid(ws, we);
    if (end <= k) {
      sub(s, ws, k, known);
      out.push(rangeHash(reader, k, we));
    } else if (s >= k) {
      sub(s, k, we, known);
      out.push(rangeHash(reader, ws, k));
    } else {
      // The subtree straddles the split, so it starts at the window's start: its left part is the
      // left child, sent whole; the rest is proven in the right child, which the verifier lacks.
      sub(k, k, we, false);
      out.push(rangeHash(reader, ws, k));
    }
  };
  sub(start, 0, size, true);
  return out;
}

/**
 * Whether `proof` shows that the subtree `[start, end)` whose hash is `subtreeHash` sits at those
 * positions in the tree of `size` leaves whose root is `root` (draft-ietf-plants-merkle-tree-certs
 * section 4.4.3). It replays the proof's construction: every hash it reads has one place, and the
 * proof must be used up exactly. Never throws: anything malformed is false.
 *
 * @example
 * ```ts
 * verifySubtreeProof(4, 8, 14, [hash0to4, hash8to14], subtreeHash, root); // true for the right hashes
 * ```
 */
export function verifySubtreeProof(
  start: number,
  end: number,
  size: number,
  proof: readonly Uint8Array[],
  subtreeHash: Uint8Array,
  root: Uint8Array,
): boolean {
  try {
    if (!isSubtree(start, end) || !isTreeSize(size) || end > size || !Array.isArray(proof) || proof.length > 128) return false;
    if (!(subtreeHash instanceof Uint8Array) || subtreeHash.length !== 32 || !(root instanceof Uint8Array)) return false;
    if (!proof.every((h) => h instanceof Uint8Array && h.length === 32)) return false;
    let next = 0;
    const take = (): Uint8Array => {
      const h = proof[next++];
      if (!h) throw new RangeError('proof too short');
      return h;
    };
    // The hash of the part of the subtree inside the window, and the window's own hash.
    const walk = (s: number, ws: number, we: number, known: boolean): { part: Uint8Array; window: Uint8Array } => {
      if (s === ws && end === we) {
        const h = known ? subtreeHash : take();
        return { part: h, window: h };
      }
      const k = mid(ws, we);
      if (end <= k) {
        const r = walk(s, ws, k, known);
        return { part: r.part, window: nodeHash(r.window, take()) };
      }
      if (s >= k) {
        const r = walk(s, k, we, known);
        return { part: r.part, window: nodeHash(take(), r.window) };
      }
      if (s !== ws) throw new RangeError('not a subtree');
      const r = walk(k, k, we, false);
      const left = take();
      return { part: nodeHash(left, r.part), window: nodeHash(left, r.window) };
    };
    const r = walk(start, 0, size, true);
    return next === proof.length && bytesEqual(r.part, subtreeHash) && bytesEqual(r.window, root);
  } catch {
    return false;
  }
}
