// The planner and assembler against the in-memory reference tree: whatever a proof reads is planned,
// a proof assembled from only the planned subtrees equals the direct one, and integrating in
// batches from the frontier alone gives the reference tree's nodes and root.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { consistencyProof, inclusionProof, treeRoot, type TreeReader } from '../../src/merkle/prove.js';
import { MemoryTree } from '../../src/merkle/memory.js';
import { NodeSet, frontier, integrate, planReads } from '../../src/merkle/plan.js';
import { toHex } from '../../src/encoding/bytes.js';
import { leafHash, nodeHash } from '../../src/merkle/hash.js';

const leaf = (i: number) => new Uint8Array([i & 255, (i >> 8) & 255, 7]);
const treeOf = (n: number) => {
  const t = new MemoryTree();
  for (let i = 0; i < n; i++) t.appendData(leaf(i));
  return t;
};
const hex = (xs: Uint8Array[]) => xs.map(toHex);

describe('Merkle planning and assembly', () => {
  it('property: proofs and roots assembled from the planned subtrees equal the direct ones', () => {
    const tree = treeOf(300);
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 300 }), fc.nat(), fc.nat(), (size, a, b) => {
        const index = a % size;
        const first = 1 + (b % size);
        const run = (r: TreeReader) => ({
          inc: inclusionProof(r, index, size),
          con: consistencyProof(r, first, size),
          roots: [treeRoot(r, first), treeRoot(r, size)],
        });
        const ids = planReads(run);
        expect(new Set(ids.map((x) => `${x.level}:${x.index}`)).size).toBe(ids.length);
        // Only subtrees inside the tree are planned, and O(log n) of them.
        for (const id of ids) expect((id.index + 1) * 2 ** id.level).toBeLessThanOrEqual(size);
        expect(ids.length).toBeLessThanOrEqual(4 * Math.ceil(Math.log2(size + 1)) + 4);
        const set = new NodeSet(
          ids,
          ids.map((x) => tree.subtree(x.level, x.index)),
        );
        const got = run(set as never);
        const want = run(tree);
        expect([hex(got.inc), hex(got.con), hex(got.roots)]).toEqual([hex(want.inc), hex(want.con), hex(want.roots)]);
      }),
      { numRuns: 300 },
    );
  });

  it('a subtree that was not planned is a RangeError, never a wrong hash', () => {
    const set = new NodeSet([{ level: 0, index: 0 }], [new Uint8Array(32)]);
    expect(() => set.subtree(0, 1)).toThrow(RangeError);
    expect(() => new NodeSet([{ level: 0, index: 0 }], [])).toThrow(RangeError);
  });

  it('property: batched integration from the frontier alone equals the reference tree', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 40 }), { maxLength: 12 }), (batches) => {
        const ref = new MemoryTree();
        let size = 0;
        let front: Uint8Array[] = [];
        for (const count of batches) {
          const leaves = Array.from({ length: count }, (_, j) => leaf(size + j));
          const r = integrate(size, front, leaves);
          for (const d of leaves) ref.appendData(d);
          // Every completed subtree, and only those, with the reference's hash.
          for (const n of r.nodes) expect(toHex(n.hash)).toBe(toHex(ref.subtree(n.level, n.index)));
          const expected = leaves.length + leaves.reduce((acc, _, j) => acc + trailingOnes(size + j), 0);
          expect(r.nodes.length).toBe(expected);
          size += count;
          expect(toHex(r.root)).toBe(toHex(treeRoot(ref, size)));
          expect(hex(r.frontier)).toEqual(hex(frontier(size).map((f) => ref.subtree(f.level, f.index))));
          front = r.frontier;
        }
      }),
      { numRuns: 200 },
    );
  });

  it('refuses a frontier that does not match the size', () => {
    expect(() => integrate(3, [new Uint8Array(32)], [])).toThrow(RangeError);
    expect(frontier(0)).toEqual([]);
    expect(frontier(13)).toEqual([
      { level: 3, index: 0 },
      { level: 2, index: 2 },
      { level: 0, index: 12 },
    ]);
  });
});

function trailingOnes(i: number): number {
  let n = 0;
  while (i % 2 === 1) {
    n++;
    i = (i - 1) / 2;
  }
  return n;
}

describe('an injected hasher', () => {
  it('is the one integrate uses, for every leaf, node and the root', () => {
    const calls = { leaf: 0, node: 0 };
    const counting = {
      leaf: (d: Uint8Array) => (calls.leaf++, leafHash(d)),
      node: (l: Uint8Array, r: Uint8Array) => (calls.node++, nodeHash(l, r)),
    };
    const leaves = Array.from({ length: 5 }, (_, i) => leaf(i));
    const r = integrate(0, [], leaves, counting);
    expect(toHex(r.root)).toBe(toHex(integrate(0, [], leaves).root));
    // 5 leaves; 3 completed subtrees (2 at level 1, 1 at level 2); the root folds 2 frontier nodes.
    expect(calls).toEqual({ leaf: 5, node: 4 });
  });
});
