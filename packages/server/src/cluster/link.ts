// A server process's line to its cluster primary: the one rate limiter, the one council probe and
// the metrics of every process live there; the witnessing state the leader (process 0) gathers is
// shared through it. Asks time out, so a primary that is gone never hangs a request.
import type { CouncilHealth } from '../council/probe.js';
import { type Ask, type Notice, type SharedWitnessing, asAnswer, asCouncil, asNotice } from './messages.js';

/** How long an ask waits for the primary before the request goes on without it. */
const ASK_TIMEOUT_MS = 2_000;

type AskBody = Ask extends infer A ? (A extends Ask ? Omit<A, 'id'> : never) : never;

export interface ClusterLink {
  /** This process's index (0 to processes - 1); process 0 leads the once-per-cluster duties. */
  index: number;
  leader: boolean;
  /** The sliding-window limiter's answer (0: allowed; else seconds to wait), one limiter for all processes. */
  take(ip: string, group: string, perMinute: number): Promise<number>;
  council(): Promise<CouncilHealth | null>;
  /** The metrics of every process, aggregated by the primary. */
  metrics(): Promise<string | null>;
  /** The leader shares its witnessing state; the others read the latest shared. */
  shareWitnessing(state: SharedWitnessing): void;
  witnessing(): SharedWitnessing | null;
  ready(url: string): void;
  onShutdown(fn: () => void): void;
}

export function clusterLink(index: number, proc: NodeJS.Process = process): ClusterLink {
  let seq = 0;
  const pending = new Map<number, (v: unknown) => void>();
  let shared: SharedWitnessing | null = null;
  const shutdown: Array<() => void> = [];
  proc.on('message', (m: unknown) => {
    const a = asAnswer(m);
    if (a) {
      pending.get(a.id)?.(a.value);
      pending.delete(a.id);
      return;
    }
    const n: Notice | null = asNotice(m);
    if (n?.svc === 'witnessing') shared = n.state;
    else if (n?.svc === 'shutdown') for (const f of shutdown) f();
  });
  // A primary that went away takes its processes with it (they would otherwise serve unsupervised).
  proc.on('disconnect', () => {
    for (const f of shutdown) f();
  });
  const ask = (body: AskBody, fallback: unknown): Promise<unknown> =>
    new Promise((resolve) => {
      if (!proc.connected || !proc.send) return resolve(fallback);
      const id = ++seq;
      const timer = setTimeout(() => {
        pending.delete(id);
        resolve(fallback);
      }, ASK_TIMEOUT_MS);
      timer.unref();
      pending.set(id, (v) => {
        clearTimeout(timer);
        resolve(v);
      });
      proc.send({ ...body, id });
    });
  return {
    index,
    leader: index === 0,
    // Without its primary a process refuses nothing: limits are protection, not correctness.
    take: async (ip, group, perMinute) => {
      const v = await ask({ svc: 'take', ip, group, perMinute }, 0);
      return Number.isSafeInteger(v) && (v as number) >= 0 ? (v as number) : 0;
    },
    council: async () => asCouncil(await ask({ svc: 'council' }, null)),
    metrics: async () => {
      const v = await ask({ svc: 'metrics' }, null);
      return typeof v === 'string' ? v : null;
    },
    shareWitnessing: (state) => {
      shared = state;
      if (proc.connected) proc.send?.({ svc: 'witnessing', state });
    },
    witnessing: () => shared,
    ready: (url) => {
      if (proc.connected) proc.send?.({ svc: 'ready', url });
    },
    onShutdown: (fn) => void shutdown.push(fn),
  };
}
