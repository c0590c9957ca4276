// Types of peers.mjs for the server's tests.
export const BEHAVIOURS: string[];
export interface PeersResult {
  calls: number;
  outcomes: Record<string, { answer: number; refused: number }>;
  exports: { rounds: number; runs: number; size: number };
  grewMb: number;
  findings: Array<Record<string, unknown>>;
}
export function peersCampaign(o: {
  until: number;
  seed: number;
  concurrency?: number;
  /** Go on past `until` until this many export rounds are done, or `limit` (a time, ms). */
  atLeastRounds?: number;
  limit?: number;
}): Promise<PeersResult>;
