// An in-memory tree keeping every complete subtree hash: the reference the ledger store mirrors.
import { leafHash, nodeHash } from './hash.js';
import type { MerkleHasher } from './plan.js';
import type { TreeReader } from './prove.js';

/**
 * An in-memory Merkle tree keeping every complete subtree hash; a TreeReader for the proof functions.
 *
 * @example
 * ```ts
 * const tree = new MemoryTree();
 * for (const e of ['a', 'b', 'c']) tree.appendData(utf8(e));
 * const root = treeRoot(tree, 3);
 * const proof = inclusionProof(tree, 1, 3);
 * verifyInclusion(1, 3, leafHash(utf8('b')), proof, root); // true
 * ```
 */
export class MemoryTree implements TreeReader {
  /** levels[h][i] = hash of the complete subtree of 2^h leaves starting at i * 2^h. */
  private readonly levels: Uint8Array[][] = [[]];

  /** `hasher`: RFC 6962's hashes on another SHA-256 (a platform's native one); the core's by default. */
  constructor(private readonly hasher?: MerkleHasher) {}

  get size(): number {
    return this.levels[0]!.length;
  }

  /** Append a leaf by its data (hashed as an RFC 6962 leaf); returns its index. */
  appendData(data: Uint8Array): number {
    return this.appendLeafHash(this.hasher ? this.hasher.leaf(data) : leafHash(data));
  }

  appendLeafHash(hash: Uint8Array): number {
    const index = this.size;
    this.levels[0]!.push(hash);
    let h = 0;
    let i = index;
    // Each time the new leaf closes a pair, the parent subtree becomes complete.
    while (i % 2 === 1) {
      const row = this.levels[h]!;
      const parent = this.hasher ? this.hasher.node(row[i - 1]!, row[i]!) : nodeHash(row[i - 1]!, row[i]!);
      h++;
      if (!this.levels[h]) this.levels[h] = [];
      this.levels[h]!.push(parent);
      i = (i - 1) / 2;
    }
    return index;
  }

  leaf(index: number): Uint8Array | undefined {
    return this.levels[0]![index];
  }

  subtree(level: number, index: number): Uint8Array {
    const v = this.levels[level]?.[index];
    if (!v) throw new RangeError(`no complete subtree at level ${level} index ${index}`);
    return v;
  }
}
