// One computation serves every caller for a while: callers that arrive while it runs share it, and
// its result is reused until it is older than the interval. A scrape flood then costs one
// aggregation per interval, whatever its rate.

/**
 * Wrap `compute` so that it runs at most once per `intervalMs` (and never twice at once).
 *
 * @example
 * ```ts
 * const text = fresh(1_000, () => aggregator.clusterMetrics());
 * await Promise.all([text(), text(), text()]); // one aggregation
 * ```
 */
export function fresh<T>(intervalMs: number, compute: () => Promise<T>, now: () => number = Date.now): () => Promise<T> {
  let last: { at: number; value: T } | null = null;
  let running: Promise<T> | null = null;
  return () => {
    if (last && now() - last.at < intervalMs) return Promise.resolve(last.value);
    running ??= compute().then(
      (value) => {
        last = { at: now(), value };
        running = null;
        return value;
      },
      (e: unknown) => {
        running = null;
        throw e;
      },
    );
    return running;
  };
}
