// Calls in one turn answered together (util/coalesce.ts): each call gets its own item's result,
// groups are at most `max`, a failing group fails only its calls, and a short answer never
// leaves a call hanging.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { coalesced } from '../../src/util/coalesce.js';

describe('coalesced', () => {
  it('property: n calls in one turn make ceil(n / max) runs of at most max, and each call gets its own result', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.integer(), { maxLength: 60 }), fc.integer({ min: 1, max: 16 }), async (items, max) => {
        const runs: number[][] = [];
        const twice = coalesced(async (xs: number[]) => {
          runs.push(xs);
          return xs.map((x) => x * 2);
        }, max);
        expect(await Promise.all(items.map(twice))).toEqual(items.map((x) => x * 2));
        expect(runs.length).toBe(Math.ceil(items.length / max));
        expect(runs.every((r) => r.length <= max)).toBe(true);
        expect(runs.flat()).toEqual(items);
      }),
      { numRuns: 60 },
    );
  });

  it('calls in later turns are later runs', async () => {
    const runs: number[][] = [];
    const echo = coalesced(async (xs: number[]) => (runs.push(xs), xs), 10);
    await Promise.all([echo(1), echo(2)]);
    await echo(3);
    expect(runs).toEqual([[1, 2], [3]]);
  });

  it('a group that fails rejects only its own calls; a short answer rejects the calls it left out', async () => {
    const flaky = coalesced(async (xs: number[]) => {
      if (xs.includes(13)) throw new Error('unlucky group');
      return xs.slice(0, 1);
    }, 2);
    const settled = await Promise.allSettled([flaky(1), flaky(2), flaky(13), flaky(4)]);
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'rejected']);
    expect((settled[1] as PromiseRejectedResult).reason.message).toMatch(/fewer results/);
    expect((settled[2] as PromiseRejectedResult).reason.message).toBe('unlucky group');
  });
});
