// A bounded slice of the cluster campaign (`npm run fuzz -- --only cluster`) in every test run:
// short phases of every flood family, kills and freezes between them, and the same checks (limits
// never exceeded, no 5xx but 503, the primary alive, the port served after every phase). Latency
// is judged by the campaign alone: a test machine shares its cores with other tests.
import { clusterCampaign } from '@svc/tools/fuzz/cluster';
import { describe, expect, it } from 'vitest';

describe('cluster campaign, bounded slice', () => {
  it('every flood family for a moment, processes killed and frozen: no finding', async () => {
    const r = await clusterCampaign({
      until: Date.now() + 20_000,
      seed: 29,
      phaseMs: 2_000,
      connections: 20,
      port: 25000 + Math.floor(Math.random() * 1000),
      p99GoalMs: Number.POSITIVE_INFINITY,
    });
    expect(r.findings).toEqual([]);
    expect(r.phases.length).toBeGreaterThanOrEqual(5);
    expect(r.allowed).toBeLessThanOrEqual(r.most);
    expect(Object.keys(r.statuses).filter((s) => Number(s) >= 500 && s !== '503')).toEqual([]);
  }, 90_000);
});
