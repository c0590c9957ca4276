// Property-testing your own integration with @svc/core/arbitraries (fast-check) and @svc/core/testing: whatever your app does with a
// bundle, valid ones must be accepted and every mutation must be rejected.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { verifyBundle, SvcError } from '@svc/core';
import { mutated, proofBundle } from '@svc/core/arbitraries';
import { testKeys } from '@svc/core/testing';

const K = testKeys('my-app');

/** Stand-in for an application's own gate: accept only verified answers from pinned keys. */
async function appAccepts(doc: unknown): Promise<boolean> {
  try {
    const r = await verifyBundle(doc, { trustedKeys: K.trustedKeys });
    return r.verdict.overallOk && r.signerRecognized;
  } catch (e) {
    if (e instanceof SvcError) return false;
    throw e;
  }
}

describe('my app and signed answers', () => {
  it('accepts every valid bundle', async () => {
    await fc.assert(
      fc.asyncProperty(proofBundle(K), async (b) => {
        expect(await appAccepts(b)).toBe(true);
      }),
      { numRuns: 25 },
    );
  });

  it('rejects every mutated bundle', async () => {
    await fc.assert(
      fc.asyncProperty(mutated(proofBundle(K)), async (m) => {
        expect(await appAccepts(m.bundle), m.description).toBe(false);
      }),
      { numRuns: 40 },
    );
  });
});
