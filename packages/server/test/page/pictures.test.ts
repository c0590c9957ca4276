// The page's inclusion picture is drawn from the path's shape: at each step the sibling sits left
// or right. Folding the hashes by those sides must give the tree's root, for any tree and leaf.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toHex, utf8 } from '@svc/core/primitives';
import { MemoryTree, inclusionProof, nodeHash, treeRoot } from '@svc/core/merkle';
import { inclusionSteps } from '../../page/pictures.js';

describe('the inclusion picture', () => {
  it('property: the drawn sides fold the path into the root; a size the path does not fit draws nothing', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 300 }), fc.nat(), (size, pick) => {
        const tree = new MemoryTree();
        for (let i = 0; i < size; i++) tree.appendData(utf8(`leaf ${i}`));
        const index = pick % size;
        const path = inclusionProof(tree, index, size);
        const steps = inclusionSteps(index, size, path.map(toHex));
        expect(steps).not.toBeNull();
        let r = tree.leaf(index)!;
        for (const [k, st] of steps!.entries()) r = st.side === 'left' ? nodeHash(path[k]!, r) : nodeHash(r, path[k]!);
        expect(toHex(r)).toBe(toHex(treeRoot(tree, size)));
        // A leaf past the end of the tree has no path to draw.
        expect(inclusionSteps(size, size, path.map(toHex))).toBeNull();
      }),
      { numRuns: 300 },
    );
  });
});
