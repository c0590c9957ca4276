// A server process's line to its cluster primary: the one rate limiter, the one council probe and
// the metrics of every process live there; the witnessing state the leader (process 0) gathers is
// shared through it. Asks time out, so a primary that is gone never hangs a request; a limit the
// primary did not decide in time is a refusal (null), never a pass.
import type { CouncilHealth } from '../council/probe.js';
import { type Ask, type Notice, type SharedWitnessing, asAnswer, asCouncil, asNotice } from './messages.js';

/** How long an ask waits for the primary before the request goes on without it. */
const ASK_TIMEOUT_MS = 2_000;

type AskBody = Ask extends infer A ? (A extends Ask ? Omit<A, 'id'> : never) : never;

export interface ClusterLink {
  /** This process's index (0 to processes - 1); process 0 leads the once-per-cluster duties. */
  index: number;
  leader: boolean;
  /**
   * The sliding-window limiter's answer (0: allowed; else seconds to wait), one limiter for all
   * processes; null when the primary did not answer in time (the caller refuses the request).
   */
  take(key: string, group: string, perMinute: number, count?: number): Promise<number | null>;
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
  // A shutdown asked while the process was still starting is remembered for the handler it sets
  // once it listens: a Ctrl-C in the first second must not leave it running until SIGKILL.
  let shutdownAsked = false;
  const askShutdown = () => {
    shutdownAsked = true;
    for (const f of shutdown) f();
  };
  proc.on('message', (m: unknown) => {
    const a = asAnswer(m);
    if (a) {
      const settle = pending.get(a.id);
      pending.delete(a.id);
      settle?.(a.value);
      return;
    }
    const n: Notice | null = asNotice(m);
    if (n?.svc === 'witnessing') shared = n.state;
    else if (n?.svc === 'shutdown') askShutdown();
  });
  // A primary that went away takes its processes with it (they would otherwise serve unsupervised).
  proc.on('disconnect', askShutdown);
  // Every send is guarded: a send to a primary that just went away fails in its callback, never as
  // an unhandled 'error' that would end this process mid-request.
  const send = (m: unknown): boolean => {
    if (!proc.connected || !proc.send) return false;
    try {
      proc.send(m as never, (e: Error | null) => void e);
      return true;
    } catch {
      return false;
    }
  };
  proc.on('error', () => undefined);
  const ask = (body: AskBody, fallback: unknown): Promise<unknown> =>
    new Promise((resolve) => {
      const id = ++seq;
      const timer = setTimeout(() => {
        // An event loop held past the deadline runs timers before it reads the channel: give an
        // answer already waiting there one turn before deciding without it.
        setImmediate(() => {
          if (!pending.delete(id)) return;
          resolve(fallback);
        });
      }, ASK_TIMEOUT_MS);
      timer.unref();
      pending.set(id, (v) => {
        clearTimeout(timer);
        resolve(v);
      });
      if (!send({ ...body, id })) {
        clearTimeout(timer);
        pending.delete(id);
        resolve(fallback);
      }
    });
  return {
    index,
    leader: index === 0,
    // Without its primary's answer a process cannot know the client's window: it refuses (null).
    take: async (key, group, perMinute, count) => {
      const v = await ask({ svc: 'take', ip: key, group, perMinute, ...(count !== undefined && count !== 1 ? { count } : {}) }, null);
      return Number.isSafeInteger(v) && (v as number) >= 0 ? (v as number) : null;
    },
    council: async () => asCouncil(await ask({ svc: 'council' }, null)),
    metrics: async () => {
      const v = await ask({ svc: 'metrics' }, null);
      return typeof v === 'string' ? v : null;
    },
    shareWitnessing: (state) => {
      shared = state;
      send({ svc: 'witnessing', state });
    },
    witnessing: () => shared,
    ready: (url) => void send({ svc: 'ready', url }),
    onShutdown: (fn) => {
      shutdown.push(fn);
      if (shutdownAsked) queueMicrotask(fn);
    },
  };
}
