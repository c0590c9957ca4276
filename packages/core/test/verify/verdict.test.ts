// Rule V5 and the recognition rule live in one function; every kind's verdict is folded by it.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { foldVerdict } from '../../src/verify/verdict.js';

describe('foldVerdict (V5)', () => {
  it('passes exactly when a layer was checked and every layer and condition holds; recognition needs the pass', () => {
    fc.assert(
      fc.property(
        fc.nat({ max: 5 }),
        fc.boolean(),
        fc.boolean(),
        fc.array(fc.boolean(), { maxLength: 4 }),
        (checks, layersOk, pinned, conditions) => {
          const v = foldVerdict(checks, layersOk, pinned, ...conditions);
          const want = checks > 0 && layersOk && !conditions.includes(false);
          expect(v.overallOk).toBe(want);
          expect(v.signerRecognized).toBe(want && pinned);
        },
      ),
    );
  });
});
