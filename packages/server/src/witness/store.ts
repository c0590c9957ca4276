// The witness's memory: the latest checkpoint it cosigned for each origin, in SQLite. A decision
// and its write happen in one IMMEDIATE transaction, so two submissions for one origin (in this
// process or another on the same file) can never both pass against the same old size: the race
// c2sp.org/tlog-witness describes, where a smaller checkpoint would overwrite a larger one.
// Requests that arrive together share one transaction (group commit): the sync to disk that makes
// an answer durable is the cost, so it is paid once per group, not once per request.
import type { StatementSync } from 'node:sqlite';
import type { WitnessState } from '@svc/core/tlog';
import { Sqlite } from '../ledger/sqlite/driver.js';

const SCHEMA = `CREATE TABLE IF NOT EXISTS witnessed(
  origin TEXT PRIMARY KEY, size INTEGER NOT NULL, root BLOB NOT NULL, checkpoint TEXT NOT NULL, updated INTEGER NOT NULL)`;

/** Where a witness keeps its states: SQLite in its data folder, or PostgreSQL shared by instances. */
export interface WitnessStates {
  get(origin: string): WitnessState | null | Promise<WitnessState | null>;
  /**
   * Run each `decide` in order against the stored states (each sees the writes of those before it)
   * and persist what they return, atomically. `origins` are those the requests name (for locking).
   */
  transactAll<T extends { origin?: string; state?: WitnessState }>(
    decides: ((read: (origin: string) => WitnessState | null) => T)[],
    now: number,
    origins: readonly string[],
  ): T[] | Promise<T[]>;
  close(): void | Promise<void>;
}

export class WitnessStore implements WitnessStates {
  private readonly db: Sqlite;
  private readonly getQ: StatementSync;
  private readonly putQ: StatementSync;

  constructor(file: string) {
    this.db = new Sqlite(file, { timeout: 10_000 });
    this.db.pragma('journal_mode = WAL');
    // FULL: a cosignature is answered only once its state survives power loss.
    this.db.pragma('synchronous = FULL');
    this.db.pragma('mmap_size = 0');
    this.db.exec(SCHEMA);
    this.getQ = this.db.prepare('SELECT size, root, checkpoint FROM witnessed WHERE origin = ?');
    this.putQ = this.db.prepare(
      'INSERT INTO witnessed(origin, size, root, checkpoint, updated) VALUES (?, ?, ?, ?, ?) ON CONFLICT(origin) DO UPDATE SET size = excluded.size, root = excluded.root, checkpoint = excluded.checkpoint, updated = excluded.updated',
    );
  }

  get(origin: string): WitnessState | null {
    const r = this.getQ.get(origin) as { size: number; root: Uint8Array; checkpoint: string } | undefined;
    return r ? { size: r.size, root: r.root, checkpoint: r.checkpoint } : null;
  }

  /**
   * Run each `decide` in order against the stored states (each sees the writes of those before it)
   * and persist the states they return, all in one transaction: one commit, one sync to disk, for
   * every request that arrived together. `decide` is synchronous on purpose: nothing may interleave
   * between a read and its write.
   */
  transactAll<T extends { origin?: string; state?: WitnessState }>(
    decides: ((read: (origin: string) => WitnessState | null) => T)[],
    now: number,
  ): T[] {
    return this.db.transaction(
      () =>
        decides.map((decide) => {
          const answer = decide((o) => this.get(o));
          if (answer.state && answer.origin !== undefined)
            this.putQ.run(answer.origin, answer.state.size, answer.state.root, answer.state.checkpoint, now);
          return answer;
        }),
      'IMMEDIATE',
    );
  }

  close(): void {
    this.db.close();
  }
}
