// Sliding one-minute windows per (client IP, endpoint group): a request is allowed when fewer
// than the limit were allowed in the 60 seconds before it, so no 60-second span ever holds more
// than the limit, whatever calendar minute it straddles. Each key keeps the times of its allowed
// requests (at most the limit); keys idle for a minute are swept, and the table is capped.
import { canonicalAddress, proxySet } from './address.js';

const WINDOW_MS = 60_000;

// LIMIT-RATE: per client IP and endpoint group, a sliding minute; 429 with Retry-After past it.
export class RateLimiter {
  private readonly hits = new Map<string, number[]>();
  private lastSweep = 0;

  constructor(
    private readonly now: () => number = Date.now,
    private readonly maxKeys = 100_000,
  ) {}

  /**
   * Returns 0 when allowed, else the whole seconds until a request would be (for Retry-After).
   * `count` is how many units the request spends (an issuing batch spends one per answer); more
   * than the limit itself is never allowed (60).
   */
  take(ip: string, group: string, perMinute: number, count = 1): number {
    if (perMinute <= 0) return 0;
    if (count > perMinute) return Math.ceil(WINDOW_MS / 1000);
    const t = this.now();
    if (t - this.lastSweep >= WINDOW_MS) this.sweep(t);
    const key = `${group}\u0000${ip}`;
    let times = this.hits.get(key);
    if (!times) {
      if (this.hits.size >= this.maxKeys) this.hits.delete(this.hits.keys().next().value!);
      times = [];
      this.hits.set(key, times);
    }
    while (times.length > 0 && times[0]! <= t - WINDOW_MS) times.shift();
    if (times.length + count > perMinute)
      return Math.max(1, Math.ceil((times[times.length + count - perMinute - 1]! + WINDOW_MS - t) / 1000));
    for (let i = 0; i < count; i++) times.push(t);
    return 0;
  }

  private sweep(t: number): void {
    this.lastSweep = t;
    for (const [k, times] of this.hits) if (times.length === 0 || times[times.length - 1]! <= t - WINDOW_MS) this.hits.delete(k);
  }
}

/**
 * The client address in its one spelling (canonicalAddress): the socket's, unless the socket is a
 * trusted proxy, then the nearest hop of X-Forwarded-For that is not one.
 */
export function clientIp(socketAddress: string | undefined, forwardedFor: string | string[] | undefined, trusted: string[]): string {
  const sock = canonicalAddress(socketAddress ?? 'unknown');
  if (trusted.length === 0 || forwardedFor === undefined) return sock;
  const proxies = proxySet(trusted);
  if (!proxies.has(sock)) return sock;
  const hops = (Array.isArray(forwardedFor) ? forwardedFor.join(',') : forwardedFor)
    .split(',')
    .map((s) => canonicalAddress(s))
    .filter(Boolean);
  for (let i = hops.length - 1; i >= 0; i--) if (!proxies.has(hops[i]!)) return hops[i]!;
  return hops[0] ?? sock;
}
