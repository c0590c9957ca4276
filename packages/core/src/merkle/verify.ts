// Proof verification exactly as RFC 9162 sections 2.1.3.2 and 2.1.4.2 give it, including the edge
// cases other implementations had to fix: equal sizes, size 0, empty proofs, index == size - 1.
import { bytesEqual } from '../encoding/bytes.js';
import { half, isOdd, isPowerOfTwo, isTreeSize, nodeHash } from './hash.js';

function allHashes(proof: readonly Uint8Array[]): boolean {
  return Array.isArray(proof) && proof.every((p) => p instanceof Uint8Array && p.length === 32);
}

/** RFC 9162: "right-shift both fn and sn equally until either LSB(fn) is set or fn is 0". */
function shiftToOdd(fn: number, sn: number): [number, number] {
  while (!isOdd(fn) && fn !== 0) {
    fn = half(fn);
    sn = half(sn);
  }
  return [fn, sn];
}

/**
 * Root an inclusion path leads to, or null if the path cannot fit (index, size). `node` hashes two
 * children (RFC 6962's node hash; a platform's own SHA-256 may be injected for speed).
 *
 * @example
 * ```ts
 * const root = rootFromInclusionProof(2, 8, leaf, proof); // null when the path is malformed for that size
 * ```
 */
export function rootFromInclusionProof(
  index: number,
  size: number,
  leaf: Uint8Array,
  proof: readonly Uint8Array[],
  node: (left: Uint8Array, right: Uint8Array) => Uint8Array = nodeHash,
): Uint8Array | null {
  if (!isTreeSize(index) || !isTreeSize(size) || index >= size || !allHashes(proof) || leaf.length !== 32) return null;
  let fn = index;
  let sn = size - 1;
  let r = leaf;
  for (const p of proof) {
    if (sn === 0) return null;
    if (isOdd(fn) || fn === sn) {
      r = node(p, r);
      [fn, sn] = shiftToOdd(fn, sn);
    } else {
      r = node(r, p);
    }
    fn = half(fn);
    sn = half(sn);
  }
  return sn === 0 ? r : null;
}

/**
 * Whether `proof` proves `leaf` (a leaf hash) at `index` in the tree of `size` leaves with `root` (RFC 9162 s.2.1.3.2).
 *
 * @example
 * ```ts
 * verifyInclusion(2, 8, leafHash(utf8('c')), proof, root);
 * ```
 */
export function verifyInclusion(index: number, size: number, leaf: Uint8Array, proof: readonly Uint8Array[], root: Uint8Array): boolean {
  try {
    const r = rootFromInclusionProof(index, size, leaf, proof);
    return r !== null && root instanceof Uint8Array && bytesEqual(r, root);
  } catch {
    return false;
  }
}

/**
 * RFC 9162 2.1.4.2. A first size of 0 is never valid here (wire-format s.10): an empty tree is a
 * prefix of everything, so a "proof" of it proves nothing about the log.
 *
 * @example
 * ```ts
 * verifyConsistency(3, 8, oldRoot, newRoot, proof); // false for any other pair of roots
 * ```
 */
export function verifyConsistency(
  first: number,
  second: number,
  firstRoot: Uint8Array,
  secondRoot: Uint8Array,
  proof: readonly Uint8Array[],
): boolean {
  try {
    if (!isTreeSize(first) || !isTreeSize(second) || first < 1 || first > second || !allHashes(proof)) return false;
    if (!(firstRoot instanceof Uint8Array) || !(secondRoot instanceof Uint8Array)) return false;
    if (first === second) return proof.length === 0 && bytesEqual(firstRoot, secondRoot);
    if (proof.length === 0) return false;
    const path = isPowerOfTwo(first) ? [firstRoot, ...proof] : [...proof];
    let fn = first - 1;
    let sn = second - 1;
    while (isOdd(fn)) {
      fn = half(fn);
      sn = half(sn);
    }
    let fr = path[0]!;
    let sr = path[0]!;
    for (let i = 1; i < path.length; i++) {
      const c = path[i]!;
      if (sn === 0) return false;
      if (isOdd(fn) || fn === sn) {
        fr = nodeHash(c, fr);
        sr = nodeHash(c, sr);
        [fn, sn] = shiftToOdd(fn, sn);
      } else {
        sr = nodeHash(sr, c);
      }
      fn = half(fn);
      sn = half(sn);
    }
    return sn === 0 && bytesEqual(fr, firstRoot) && bytesEqual(sr, secondRoot);
  } catch {
    return false;
  }
}
