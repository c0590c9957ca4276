// Types of cluster.mjs for the server's tests.
export interface ClusterPhase {
  route: string;
  chaos: boolean;
  bystander: { n: number; failed: number; p50: number; p99: number };
}
export interface ClusterResult {
  phases: ClusterPhase[];
  statuses: Record<string, number>;
  allowed: number;
  most: number;
  kills: number;
  freezes: number;
  maxMb: number;
  findings: Array<Record<string, unknown>>;
}
export function clusterCampaign(o: {
  until?: number;
  phases?: number;
  seed: number;
  phaseMs?: number;
  connections?: number;
  port?: number;
  p99GoalMs?: number;
}): Promise<ClusterResult>;
