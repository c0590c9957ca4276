// Fixed one-minute windows per (client IP, endpoint group). Old windows are swept lazily.
export class RateLimiter {
  private readonly hits = new Map<string, { window: number; count: number }>();
  private lastSweep = 0;

  constructor(private readonly now: () => number = Date.now) {}

  /** Returns 0 when allowed, else the seconds until the window resets (for Retry-After). */
  take(ip: string, group: string, perMinute: number): number {
    if (perMinute <= 0) return 0;
    const t = this.now();
    const window = Math.floor(t / 60_000);
    if (window !== this.lastSweep) this.sweep(window);
    const key = `${group}\u0000${ip}`;
    const e = this.hits.get(key);
    if (!e || e.window !== window) {
      this.hits.set(key, { window, count: 1 });
      return 0;
    }
    if (e.count >= perMinute) return Math.max(1, Math.ceil(((window + 1) * 60_000 - t) / 1000));
    e.count++;
    return 0;
  }

  private sweep(window: number): void {
    this.lastSweep = window;
    for (const [k, e] of this.hits) if (e.window !== window) this.hits.delete(k);
  }
}

/** The client address: the socket's, unless it is a trusted proxy, then the nearest untrusted hop. */
export function clientIp(socketAddress: string | undefined, forwardedFor: string | string[] | undefined, trusted: string[]): string {
  const sock = (socketAddress ?? 'unknown').replace(/^::ffff:/, '');
  if (trusted.length === 0 || !trusted.includes(sock) || forwardedFor === undefined) return sock;
  const hops = (Array.isArray(forwardedFor) ? forwardedFor.join(',') : forwardedFor)
    .split(',')
    .map((s) => s.trim().replace(/^::ffff:/, ''))
    .filter(Boolean);
  for (let i = hops.length - 1; i >= 0; i--) if (!trusted.includes(hops[i]!)) return hops[i]!;
  return hops[0] ?? sock;
}
