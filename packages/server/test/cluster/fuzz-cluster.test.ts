// A bounded slice of the cluster campaign (`npm run fuzz -- --only cluster`) in every test run:
// one short phase of every flood family, kills and freezes in every other phase, and the same
// checks (limits never exceeded, no 5xx but 503, the primary alive, the port served after every
// phase). Latency is judged by the campaign alone: a test machine shares its cores with other tests.
// The slice is a count of phases, not a deadline: on a loaded machine the start-up and the
// recoveries take longer, and a deadline then covered fewer families (CI: 4 phases of 9).
import { clusterCampaign } from '@svc/tools/fuzz/cluster';
import { describe, expect, it } from 'vitest';

const FAMILIES = 9;

describe('cluster campaign, bounded slice', () => {
  it('every flood family for a moment, processes killed and frozen: no finding', async () => {
    const r = await clusterCampaign({
      phases: FAMILIES,
      until: Date.now() + 100_000,
      seed: 29,
      // A second a flood: long enough for its strike (15-50% in) and the recovery after it.
      phaseMs: 1_000,
      connections: 20,
      port: 25000 + Math.floor(Math.random() * 1000),
      p99GoalMs: Number.POSITIVE_INFINITY,
    });
    expect(r.findings).toEqual([]);
    expect(new Set(r.phases.map((p) => p.route)).size).toBe(FAMILIES);
    // Every chaotic phase strikes at least once inside its first half.
    expect(r.kills + r.freezes).toBeGreaterThanOrEqual(r.phases.filter((p) => p.chaos).length);
    expect(r.allowed).toBeLessThanOrEqual(r.most);
    expect(Object.keys(r.statuses).filter((s) => Number(s) >= 500 && s !== '503')).toEqual([]);
  }, 150_000);
});
