// A bounded slice of the peers campaign (`npm run fuzz -- --only peers`) in every test run: each
// client that reads someone else's service (tile source, keys URL, policy witness, council seat)
// against every hostile behaviour at least once, beside overlapping exports into one folder.
import { BEHAVIOURS, peersCampaign } from '@svc/tools/fuzz/peers';
import { describe, expect, it } from 'vitest';

describe('peers campaign, bounded slice', () => {
  it('hostile peers and overlapping exports for 8 s (and 3 export rounds at least): no finding', async () => {
    // The rounds are work to do, not a speed: a loaded machine (npm run test:stress) once finished
    // none in 8 s, each starting with a fresh log and its keys. The slice goes on until it has.
    const started = Date.now();
    const r = await peersCampaign({ until: started + 8_000, atLeastRounds: 3, limit: started + 90_000, seed: 30, concurrency: 12 });
    expect(r.findings).toEqual([]);
    expect(r.exports.rounds).toBeGreaterThanOrEqual(3);
    // Every behaviour met by some client, and refusals seen (the families are really hostile).
    for (const b of BEHAVIOURS)
      expect(
        Object.keys(r.outcomes).some((k) => k.endsWith(`/${b}`)),
        b,
      ).toBe(true);
    expect(Object.values(r.outcomes).reduce((n, o) => n + o.refused, 0)).toBeGreaterThan(10);
  }, 120_000);
});
