// One list of what a server opened, closed in the reverse order of opening: a part is closed
// before what it was built on (the listeners before the pool and the ledger they use, the ledger's
// witnessing before the ledger). Each closer runs once; one that fails is logged and the rest
// still run, so a shutdown never leaves a store open because a socket would not close.
/**
 * Closers, last in first out.
 *
 * @example
 * ```ts
 * const closers = new Closers((part, error) => log('close_failed', { part, error }));
 * const pool = openPool();
 * closers.push('pool', () => pool.close());
 * await closers.close(); // closes the pool, then anything pushed before it
 * ```
 */
export class Closers {
  private readonly stack: { name: string; close: () => unknown }[] = [];
  private closing: Promise<void> | null = null;

  /** `failed` hears of a closer that threw: its name and the error's message. */
  constructor(private readonly failed: (part: string, error: string) => void) {}

  /** Close `close` (named for the log) after everything pushed later. */
  push(name: string, close: () => unknown): void {
    if (this.closing) throw new Error(`${name} was opened after the shutdown began`);
    this.stack.push({ name, close });
  }

  /** Every closer, newest first, once; resolves when all have finished. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      for (let c = this.stack.pop(); c; c = this.stack.pop()) {
        try {
          await c.close();
        } catch (e) {
          this.failed(c.name, e instanceof Error ? e.message : String(e));
        }
      }
    })();
    return this.closing;
  }
}
