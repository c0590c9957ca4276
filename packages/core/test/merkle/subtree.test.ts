import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { toHex, utf8 } from '../../src/encoding/bytes.js';
import { sha256 } from '../../src/encoding/hash.js';
import { MemoryTree, consistencyProof, rangeHash, treeRoot } from '../../src/merkle/index.js';
import { isSubtree, subtreeProof, verifySubtreeProof } from '../../src/merkle/subtree.js';
import { mtcSubtrees as V } from '../vectors-fs.js';

const byteTree = (n: number): MemoryTree => {
  const t = new MemoryTree();
  for (let i = 0; i < n; i++) t.appendData(new Uint8Array([i]));
  return t;
};

describe('subtrees: draft-ietf-plants-merkle-tree-certs vectors', () => {
  const tree = byteTree(130);

  it('validity (section 4.1)', () => {
    expect(V.valid.length).toBeGreaterThan(0);
    for (const [s, e, ok] of V.valid) expect([s, e, isSubtree(s as number, e as number)]).toEqual([s, e, ok]);
  });

  it('the worked examples (section 4.4): the proof hashes are those ranges, and verify', () => {
    const t = byteTree(14);
    expect(V.examples.cases.length).toBe(2);
    for (const c of V.examples.cases) {
      const proof = subtreeProof(t, c.start, c.end, c.size);
      expect(proof.map(toHex)).toEqual(c.proof_ranges.map(([a, b]) => toHex(rangeHash(t, a!, b!))));
      expect(verifySubtreeProof(c.start, c.end, c.size, proof, rangeHash(t, c.start, c.end), treeRoot(t, c.size))).toBe(true);
    }
  });

  it('appendix C.1: every valid subtree hash up to 130 leaves', () => {
    let lines = '';
    let count = 0;
    for (let end = 1; end <= 130; end++)
      for (let start = 0; start < end; start++) {
        if (!isSubtree(start, end)) continue;
        lines += `[${start}, ${end}) ${toHex(rangeHash(tree, start, end))}\n`;
        count++;
      }
    expect(count).toBeGreaterThan(400);
    expect(toHex(sha256(utf8(lines)))).toBe(V.subtree_hashes.sha256);
  });

  it('appendix C.3: every subtree consistency proof up to 130 leaves, each of which verifies', () => {
    let lines = '';
    let verified = 0;
    for (let n = 0; n <= 130; n++) {
      const root = treeRoot(tree, n);
      for (let end = 1; end <= n; end++)
        for (let start = 0; start < end; start++) {
          if (!isSubtree(start, end)) continue;
          const proof = subtreeProof(tree, start, end, n);
          if (verifySubtreeProof(start, end, n, proof, rangeHash(tree, start, end), root)) verified++;
          lines += `[${start}, ${end}) ${n}${proof.map((p) => ` ${toHex(p)}`).join('')}\n`;
        }
    }
    expect(toHex(sha256(utf8(lines)))).toBe(V.consistency_proofs.sha256);
    expect(verified).toBe(lines.split('\n').length - 1);
  });
});

describe('subtree proofs (properties)', () => {
  /** A tree of n random leaves, and a valid subtree [start, end) of it. */
  const setup = fc
    .integer({ min: 1, max: 300 })
    .chain((n) => fc.tuple(fc.constant(n), fc.integer({ min: 0, max: n - 1 }), fc.integer({ min: 1, max: n })))
    .map(([n, a, b]) => {
      // The largest subtree starting at a's alignment that ends by b: shrink until valid.
      const end = Math.max(a + 1, Math.min(b, n));
      let start = a;
      while (!isSubtree(start, end)) start--;
      return { n, start, end };
    });

  it('a proof of a subtree verifies; any other subtree, hash, root or proof does not', () => {
    fc.assert(
      fc.property(setup, fc.nat(), fc.integer({ min: 0, max: 255 }), ({ n, start, end }, pick, bit) => {
        const t = new MemoryTree();
        for (let i = 0; i < n; i++) t.appendData(utf8(`leaf ${i}`));
        const proof = subtreeProof(t, start, end, n);
        const hash = rangeHash(t, start, end);
        const root = treeRoot(t, n);
        expect(verifySubtreeProof(start, end, n, proof, hash, root)).toBe(true);
        const flip = (h: Uint8Array) => {
          const c = h.slice();
          c[bit % 32]! ^= 1 << (bit % 8);
          return c;
        };
        expect(verifySubtreeProof(start, end, n, proof, flip(hash), root)).toBe(false);
        expect(verifySubtreeProof(start, end, n, proof, hash, flip(root))).toBe(false);
        if (proof.length > 0) {
          const k = pick % proof.length;
          expect(
            verifySubtreeProof(
              start,
              end,
              n,
              proof.map((p, i) => (i === k ? flip(p) : p)),
              hash,
              root,
            ),
          ).toBe(false);
          expect(verifySubtreeProof(start, end, n, proof.slice(1), hash, root)).toBe(false);
        }
        expect(verifySubtreeProof(start, end, n, [...proof, hash], hash, root)).toBe(false);
        // (The tree's size is not among what a proof alone pins: as for RFC 6962 inclusion proofs, a
        // size whose tree has the same shape on the path verifies too. The signed checkpoint pins it.)
        if (end - start > 1) expect(verifySubtreeProof(start, end - 1, n, proof, hash, root)).toBe(false);
      }),
    );
  });

  it('a subtree starting at 0 has the RFC 6962 consistency proof', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 200 }), fc.nat(), (n, m) => {
        const end = 1 + (m % n);
        const t = byteTree(n);
        expect(subtreeProof(t, 0, end, n).map(toHex)).toEqual(consistencyProof(t, end, n).map(toHex));
      }),
    );
  });

  it('hostile arguments are false, never a throw', () => {
    const t = byteTree(8);
    const h = rangeHash(t, 0, 4);
    const root = treeRoot(t, 8);
    const bad: unknown[][] = [
      [-1, 4, 8],
      [0, 0, 8],
      [1, 3, 8],
      [0, 9, 8],
      [0.5, 4, 8],
      [0, 4, Number.MAX_SAFE_INTEGER + 2],
      [2 ** 53, 2 ** 53 + 1, 2 ** 53 + 2],
    ];
    for (const [s, e, n] of bad) expect(verifySubtreeProof(s as number, e as number, n as number, [], h, root)).toBe(false);
    expect(verifySubtreeProof(0, 4, 8, 'x' as never, h, root)).toBe(false);
    expect(verifySubtreeProof(0, 4, 8, [new Uint8Array(31)], h, root)).toBe(false);
    expect(verifySubtreeProof(0, 4, 8, new Array(200).fill(h), h, root)).toBe(false);
    expect(verifySubtreeProof(0, 4, 8, [rangeHash(t, 4, 8)], h.slice(0, 31), root)).toBe(false);
    expect(verifySubtreeProof(0, 4, 8, [rangeHash(t, 4, 8)], h, root)).toBe(true);
    // Sizes far past 2^32 are arithmetic, not bit operations: a subtree at 2^40 is still recognised.
    expect(isSubtree(2 ** 40, 2 ** 40 + 3)).toBe(true);
    expect(isSubtree(2 ** 40 + 2, 2 ** 40 + 5)).toBe(false);
    expect(() => subtreeProof(t, 1, 3, 8)).toThrow(RangeError);
  });
});
