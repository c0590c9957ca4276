import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { fromHex, toHex } from '../../src/encoding/bytes.js';
import {
  MemoryTree,
  consistencyProof,
  emptyRoot,
  inclusionProof,
  leafHash,
  nodeHash,
  rootFromInclusionProof,
  treeRoot,
  verifyConsistency,
  verifyInclusion,
} from '../../src/merkle/index.js';
import { rfc6962 } from '../vectors-fs.js';

const V = rfc6962 as any;
const h = (s: string) => fromHex(s)!;
const hs = (a: string[]) => a.map(h);

function treeOf(leavesHex: string[]): MemoryTree {
  const t = new MemoryTree();
  for (const l of leavesHex) t.appendData(h(l));
  return t;
}

describe('RFC 6962 vectors', () => {
  const tree = treeOf(V.leaf_inputs_hex);

  it('leaf hashes, complete subtrees, and roots at every size', () => {
    expect(V.leaf_inputs_hex.length).toBe(8);
    for (const [i, l] of (V.leaf_inputs_hex as string[]).entries()) expect(toHex(leafHash(h(l)))).toBe(V.leaf_hashes_hex[i]);
    let levels = 0;
    for (const [level, hashes] of Object.entries(V.complete_subtree_hashes_by_level_hex as Record<string, string[]>)) {
      for (const [i, x] of hashes.entries()) expect(toHex(tree.subtree(Number(level), i))).toBe(x);
      levels++;
    }
    expect(levels).toBeGreaterThanOrEqual(4);
    expect(toHex(emptyRoot())).toBe(V.empty_root_hex);
    expect(toHex(treeRoot(tree, 0))).toBe(V.empty_root_hex);
    const sizes = Object.entries(V.roots_by_size_hex as Record<string, string>);
    expect(sizes.length).toBe(8);
    for (const [size, root] of sizes) expect(toHex(treeRoot(tree, Number(size)))).toBe(root);
  });

  it('every inclusion proof is generated identically and verifies', () => {
    expect(V.inclusion_proofs.length).toBeGreaterThan(0);
    for (const p of V.inclusion_proofs) {
      if (p.tree_size <= 8) expect(inclusionProof(tree, p.leaf_index, p.tree_size).map(toHex)).toEqual(p.proof_hex);
      expect(verifyInclusion(p.leaf_index, p.tree_size, h(p.leaf_hash_hex), hs(p.proof_hex), h(p.root_hex))).toBe(true);
    }
  });

  it('every consistency proof is generated identically and verifies', () => {
    expect(V.consistency_proofs.length).toBeGreaterThan(0);
    for (const p of V.consistency_proofs) {
      if (p.size2 <= 8 && p.size1 >= 1) expect(consistencyProof(tree, p.size1, p.size2).map(toHex)).toEqual(p.proof_hex);
      expect(verifyConsistency(p.size1, p.size2, h(p.root1_hex), h(p.root2_hex), hs(p.proof_hex))).toBe(true);
    }
  });

  it('every negative case fails', () => {
    expect(V.negative_cases.length).toBeGreaterThan(5);
    for (const c of V.negative_cases) {
      const ok =
        c.kind === 'inclusion'
          ? verifyInclusion(c.leaf_index, c.tree_size, h(c.leaf_hash_hex), hs(c.proof_hex), h(c.root_hex))
          : verifyConsistency(c.size1, c.size2, h(c.root1_hex), h(c.root2_hex), hs(c.proof_hex));
      expect(ok, c.desc).toBe(false);
    }
  });

  it('the fork scenario: a forked log cannot prove consistency with an honest head', () => {
    const f = V.fork_scenario;
    const forked = treeOf(f.forked_leaf_inputs_hex);
    for (const [size, root] of Object.entries(f.forked_roots_by_size_hex as Record<string, string>))
      expect(toHex(treeRoot(forked, Number(size)))).toBe(root);
    expect(consistencyProof(forked, 4, 8).map(toHex)).toEqual(f.forked_consistency_proof_4_to_8_hex);
    expect(
      verifyConsistency(
        4,
        8,
        h(f.honest_roots_by_size_hex['4']),
        h(f.forked_roots_by_size_hex['8']),
        hs(f.forked_consistency_proof_4_to_8_hex),
      ),
    ).toBe(false);
    expect(verifyConsistency(3, 8, treeRoot(tree, 3), treeRoot(forked, 8), consistencyProof(forked, 3, 8))).toBe(true);
  });
});

describe('RFC 9162 edge cases', () => {
  const tree = treeOf(['00', '01', '02', '03', '04']);
  const root = (n: number) => treeRoot(tree, n);

  it('size 0 is never a valid first size, even with an empty proof', () => {
    expect(verifyConsistency(0, 5, emptyRoot(), root(5), [])).toBe(false);
    expect(verifyConsistency(0, 0, emptyRoot(), emptyRoot(), [])).toBe(false);
  });

  it('equal sizes need an empty proof and equal roots', () => {
    expect(verifyConsistency(5, 5, root(5), root(5), [])).toBe(true);
    expect(verifyConsistency(5, 5, root(5), root(5), [root(1)])).toBe(false);
    expect(verifyConsistency(5, 5, root(5), root(4), [])).toBe(false);
  });

  it('an empty proof never proves growth', () => {
    expect(verifyConsistency(4, 5, root(4), root(5), [])).toBe(false);
  });

  it('a proof that fits two sizes verifies only for the right one', () => {
    // PROOF(2, 4) and PROOF(3, 4) have different lengths, but PROOF(1,2) and the inclusion path of
    // leaf 1 at size 2 are both one hash: each must be accepted only in its own role.
    const p = consistencyProof(tree, 2, 4);
    expect(verifyConsistency(2, 4, root(2), root(4), p)).toBe(true);
    expect(verifyConsistency(3, 4, root(3), root(4), p)).toBe(false);
    expect(verifyConsistency(2, 5, root(2), root(5), p)).toBe(false);
  });

  it('inclusion of the last leaf and out-of-range indices', () => {
    expect(verifyInclusion(4, 5, tree.leaf(4)!, inclusionProof(tree, 4, 5), root(5))).toBe(true);
    expect(verifyInclusion(5, 5, tree.leaf(4)!, inclusionProof(tree, 4, 5), root(5))).toBe(false);
    expect(verifyInclusion(-1, 5, tree.leaf(0)!, [], root(5))).toBe(false);
    expect(verifyInclusion(0, 1, tree.leaf(0)!, [], root(1))).toBe(true);
    expect(verifyInclusion(0, 1, tree.leaf(0)!, [root(1)], root(1))).toBe(false);
  });

  it('malformed proof elements are false, never a throw', () => {
    expect(verifyInclusion(0, 2, tree.leaf(0)!, [new Uint8Array(31)], root(2))).toBe(false);
    expect(verifyConsistency(1, 2, root(1), root(2), [new Uint8Array(33)])).toBe(false);
    expect(verifyConsistency(1.5, 2, root(1), root(2), [tree.leaf(1)!])).toBe(false);
    expect(verifyInclusion(0, 2 ** 60, tree.leaf(0)!, [], root(1))).toBe(false);
  });

  it('sizes past 2^31 use arithmetic, not 32-bit bit operations', () => {
    // A tree whose leaves are all equal has one hash per level: a consistent reader for any size.
    const levels = [leafHash(new Uint8Array([42]))];
    for (let i = 1; i < 64; i++) levels.push(nodeHash(levels[i - 1]!, levels[i - 1]!));
    const fake = { subtree: (level: number, _index?: number) => levels[level]! };
    const n = 2 ** 40 + 12345;
    const idx = 2 ** 39 + 7;
    const proof = inclusionProof(fake, idx, n);
    expect(proof.length).toBeLessThanOrEqual(41);
    expect(verifyInclusion(idx, n, fake.subtree(0, idx), proof, treeRoot(fake, n))).toBe(true);
    const cp = consistencyProof(fake, 2 ** 33 + 3, n);
    expect(verifyConsistency(2 ** 33 + 3, n, treeRoot(fake, 2 ** 33 + 3), treeRoot(fake, n), cp)).toBe(true);
  });
});

describe('Merkle properties over random trees', () => {
  const big = new MemoryTree();
  for (let i = 0; i < 3000; i++) big.appendData(new Uint8Array([i & 255, i >> 8, 7]));

  it('every generated inclusion proof verifies; a tampered node, index or size fails', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 3000 }), fc.nat(), fc.nat(), (size, i, salt) => {
        const idx = i % size;
        const proof = inclusionProof(big, idx, size);
        const root = treeRoot(big, size);
        const leaf = big.leaf(idx)!;
        expect(verifyInclusion(idx, size, leaf, proof, root)).toBe(true);
        if (proof.length > 0) {
          const bad = proof.map((p) => p.slice());
          bad[salt % bad.length]![salt % 32]! ^= 1;
          expect(verifyInclusion(idx, size, leaf, bad, root)).toBe(false);
        }
        if (size > 1) expect(verifyInclusion((idx + 1) % size, size, leaf, proof, root)).toBe(false);
        const other = size + 1 + (salt % 5);
        if (other <= 3000) expect(verifyInclusion(idx, other, leaf, proof, treeRoot(big, other))).toBe(false);
      }),
      { numRuns: 400 },
    );
  });

  it('every generated consistency proof verifies; tampering fails', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 3000 }), fc.integer({ min: 1, max: 3000 }), fc.nat(), (a, b, salt) => {
        const [m, n] = a <= b ? [a, b] : [b, a];
        const proof = consistencyProof(big, m, n);
        const r1 = treeRoot(big, m);
        const r2 = treeRoot(big, n);
        expect(verifyConsistency(m, n, r1, r2, proof)).toBe(true);
        if (proof.length > 0) {
          const bad = proof.map((p) => p.slice());
          bad[salt % bad.length]![salt % 32]! ^= 1;
          expect(verifyConsistency(m, n, r1, r2, bad)).toBe(false);
          if (n < 3000) expect(verifyConsistency(m, n + 1, r1, treeRoot(big, n + 1), proof)).toBe(false);
          expect(verifyConsistency(m, n, r2, r1, proof)).toBe(false);
        }
      }),
      { numRuns: 400 },
    );
  });
});

describe('rootFromInclusionProof with an injected node hash', () => {
  it('property: a platform SHA-256 gives the same root as the core, and the hash is really used', () => {
    const calls: number[] = [];
    const counted = (l: Uint8Array, r: Uint8Array) => (calls.push(1), nodeHash(l, r));
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 64 }), fc.nat(), (size, i) => {
        const tree = new MemoryTree();
        for (let k = 0; k < size; k++) tree.appendData(new Uint8Array([k]));
        const index = i % size;
        const leaf = leafHash(new Uint8Array([index]));
        const proof = inclusionProof(tree, index, size);
        const before = calls.length;
        const root = rootFromInclusionProof(index, size, leaf, proof, counted);
        expect(toHex(root!)).toBe(toHex(rootFromInclusionProof(index, size, leaf, proof)!));
        expect(calls.length - before).toBe(proof.length);
      }),
      { numRuns: 100 },
    );
  });
});
