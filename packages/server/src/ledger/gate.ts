// The audit gate both sides of the ledger pass: every read and every batch runs the same
// incremental audit first, skipped while neither the store nor the high-water mark has changed, so
// the same state always reports the same sth_withheld reason (rule 1) and no head is signed while
// withheld (rule 2). It also starts the periodic full recheck when due.
import { ledgerUnavailable, LedgerError } from './errors.js';
import type { Auditor, Withheld } from './audit.js';
import type { HighWater } from './high-water.js';
import type { LedgerStore } from './store.js';

/** Damaged or unreadable storage is a 503 on whichever read meets it, never an untyped error. */
export async function guard<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (e) {
    if (e instanceof LedgerError) throw e;
    throw ledgerUnavailable('ledger', e);
  }
}

export class AuditGate {
  private seen: string | null = null;

  constructor(
    readonly audit: Auditor,
    private readonly store: LedgerStore,
    private readonly highWater: HighWater,
    private readonly now: () => number,
    /** Repeat the full recheck this often (ms; at least ten times as long as the last one took); off when absent. */
    private readonly auditMs?: number,
  ) {}

  /**
   * What the current state withholds, after the audit has seen it. The version that was audited
   * (`version`) is what cached roots are kept against.
   */
  async checked(): Promise<Withheld | null> {
    try {
      const v = `${await this.store.version()}|${this.highWater.version?.() ?? ''}`;
      if (v !== this.seen) {
        await this.audit.refresh();
        this.seen = v;
      }
    } catch (e) {
      this.seen = null;
      throw ledgerUnavailable('ledger', e);
    }
    this.recheckIfDue();
    return this.audit.withheld();
  }

  /** The store version the findings vouch for ('' when none does). */
  get version(): string {
    return this.seen ?? '';
  }

  private recheckIfDue(): void {
    const every = this.auditMs;
    const { at, took, failed } = this.audit.lastRecheck;
    // A recheck that could not read (the database away) is tried again after 5 s.
    const wait = failed ? Math.min(every ?? 0, 5_000) : Math.max(every ?? 0, 10 * took);
    if (!every || at === -Infinity || this.now() - at < wait) return;
    void this.audit.fullCheckInBackground().then(
      () => {
        // The findings were replaced: cached roots and the seen version no longer vouch for them.
        this.seen = null;
      },
      () => undefined,
    );
  }
}
