// Messages between the cluster's primary and its server processes (node:cluster IPC). Each side
// checks the shape of what it receives: a message that is not one of these is ignored, never
// trusted, so a confused or compromised process cannot make the other throw.
import type { CouncilHealth } from '../council/probe.js';
import type { WitnessingStatus } from '../tlog/witnessing.js';

/** What a server process asks its primary; each carries an id its answer repeats. */
export type Ask =
  | { svc: 'take'; id: number; ip: string; group: string; perMinute: number; count?: number }
  | { svc: 'council'; id: number }
  | { svc: 'metrics'; id: number };

/** The primary's answers. */
export type Answer = { svc: 'answer'; id: number; value: unknown };

/** The leader's witnessing state, shared with every other process through the primary. */
export interface SharedWitnessing {
  published: string | null;
  status: WitnessingStatus;
}

export type Notice = { svc: 'witnessing'; state: SharedWitnessing } | { svc: 'shutdown' } | { svc: 'ready'; url: string };

const isObj = (m: unknown): m is Record<string, unknown> => typeof m === 'object' && m !== null && !Array.isArray(m);
const isId = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) > 0;

export function asAsk(m: unknown): Ask | null {
  if (!isObj(m) || !isId(m.id)) return null;
  if (m.svc === 'take')
    return typeof m.ip === 'string' &&
      typeof m.group === 'string' &&
      Number.isSafeInteger(m.perMinute) &&
      m.ip.length <= 64 &&
      (m.count === undefined || (Number.isSafeInteger(m.count) && (m.count as number) >= 1 && (m.count as number) <= 100_000))
      ? (m as Ask)
      : null;
  return m.svc === 'council' || m.svc === 'metrics' ? (m as Ask) : null;
}

export function asAnswer(m: unknown): Answer | null {
  return isObj(m) && m.svc === 'answer' && isId(m.id) ? (m as Answer) : null;
}

export function asNotice(m: unknown): Notice | null {
  if (!isObj(m)) return null;
  if (m.svc === 'shutdown') return { svc: 'shutdown' };
  if (m.svc === 'ready') return typeof m.url === 'string' ? { svc: 'ready', url: m.url } : null;
  if (m.svc !== 'witnessing' || !isObj(m.state)) return null;
  const s = m.state;
  if ((s.published !== null && typeof s.published !== 'string') || !isObj(s.status)) return null;
  return m as Notice;
}

export function asCouncil(v: unknown): CouncilHealth | null {
  return isObj(v) && v.ok === true ? (v as unknown as CouncilHealth) : null;
}
