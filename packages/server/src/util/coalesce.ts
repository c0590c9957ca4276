// Calls made in the same turn of the event loop, answered together: many registrations that arrive
// or are covered at once cost one hop (a worker task, a store read) instead of one each.

/**
 * A function of one item whose calls in one turn are gathered and handed to `run` in groups of at
 * most `max`; `run` answers one result per item, in order. A group's failure fails its calls.
 *
 * @example
 * ```ts
 * const path = coalesced((xs: number[]) => ledger.paths(xs, size), 1024);
 * const [a, b] = await Promise.all([path(3), path(4)]); // one read
 * ```
 */
export function coalesced<T, R>(run: (items: T[]) => Promise<R[]>, max: number): (item: T) => Promise<R> {
  let waiting: { item: T; resolve: (r: R) => void; reject: (e: unknown) => void }[] = [];
  const flush = () => {
    const all = waiting;
    waiting = [];
    for (let k = 0; k < all.length; k += max) {
      const group = all.slice(k, k + max);
      run(group.map((w) => w.item)).then(
        (results) => {
          for (const [n, w] of group.entries()) {
            if (n < results.length) w.resolve(results[n]!);
            else w.reject(new Error('a batched call answered fewer results than it was asked for'));
          }
        },
        (e: unknown) => {
          for (const w of group) w.reject(e);
        },
      );
    }
  };
  return (item) =>
    new Promise<R>((resolve, reject) => {
      if (waiting.length === 0) setImmediate(flush);
      waiting.push({ item, resolve, reject });
    });
}
