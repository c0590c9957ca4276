// Who accepts a cluster's connections: each server process from the kernel, unless the operator
// chose Node's round-robin through the primary (NODE_CLUSTER_SCHED_POLICY). The behaviour this
// buys (a killed process's connections reset, never held open) is under-load.test.ts's property.
import cluster from 'node:cluster';
import { afterEach, describe, expect, it } from 'vitest';
import { connectionsFromTheKernel } from '../../src/internal.js';

describe('cluster scheduling', () => {
  const before = cluster.schedulingPolicy;
  afterEach(() => {
    cluster.schedulingPolicy = before;
  });

  it('defaults to the kernel (SCHED_NONE), whatever Node would pick on this platform', () => {
    cluster.schedulingPolicy = cluster.SCHED_RR;
    connectionsFromTheKernel({});
    expect(cluster.schedulingPolicy).toBe(cluster.SCHED_NONE);
  });

  it("keeps an operator's NODE_CLUSTER_SCHED_POLICY (read by Node itself)", () => {
    cluster.schedulingPolicy = cluster.SCHED_RR;
    connectionsFromTheKernel({ NODE_CLUSTER_SCHED_POLICY: 'rr' });
    expect(cluster.schedulingPolicy).toBe(cluster.SCHED_RR);
  });
});
