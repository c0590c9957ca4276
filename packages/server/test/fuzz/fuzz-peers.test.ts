// A bounded slice of the peers campaign (`npm run fuzz -- --only peers`) in every test run: each
// client that reads someone else's service (tile source, keys URL, policy witness, council seat)
// against every hostile behaviour at least once, beside overlapping exports into one folder.
import { BEHAVIOURS, peersCampaign } from '@svc/tools/fuzz/peers';
import { describe, expect, it } from 'vitest';

describe('peers campaign, bounded slice', () => {
  it('hostile peers and overlapping exports for 8 s: no finding', async () => {
    const r = await peersCampaign({ until: Date.now() + 8_000, seed: 30, concurrency: 12 });
    expect(r.findings).toEqual([]);
    expect(r.exports.rounds).toBeGreaterThanOrEqual(3);
    // Every behaviour met by some client, and refusals seen (the families are really hostile).
    for (const b of BEHAVIOURS)
      expect(
        Object.keys(r.outcomes).some((k) => k.endsWith(`/${b}`)),
        b,
      ).toBe(true);
    expect(Object.values(r.outcomes).reduce((n, o) => n + o.refused, 0)).toBeGreaterThan(10);
  }, 60_000);
});
