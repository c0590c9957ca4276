// SQLite through Node's own node:sqlite (Node >= 24): no native addon to compile or download at
// install, one driver for every store (ledger, witness, mirror). What the stores need from it, and
// no more: statements, a statement that returns its first column, pragmas and transactions.
import type { DatabaseSync, SQLInputValue, StatementSync } from 'node:sqlite';

/** The Node major version node:sqlite is used from (it prints no ExperimentalWarning there). */
export const SQLITE_NODE = 24;

/**
 * Why SQLite cannot be opened in this runtime, with the fix, or null when it can: checked before a
 * server starts, so an old Node is a refusal to start that says what to do, never a server that
 * listens with its ledger unavailable.
 */
export function sqliteMissing(node: string = process.versions.node): string | null {
  if (Number(node.split('.')[0]) >= SQLITE_NODE && process.getBuiltinModule?.('node:sqlite')) return null;
  return `the embedded SQLite store needs Node >= ${SQLITE_NODE} (its built-in node:sqlite); this is Node ${node}: run it under Node ${SQLITE_NODE} or later, or keep the ledger in PostgreSQL with SVC_DATABASE_URL`;
}

function driver(): typeof import('node:sqlite') {
  const missing = sqliteMissing();
  if (missing) throw new Error(missing);
  return process.getBuiltinModule('node:sqlite');
}

/** A statement whose rows are their first column's value (a count, a hash, an index). */
export class Plucked {
  constructor(private readonly s: StatementSync) {
    s.setReturnArrays(true);
  }
  get(...a: SQLInputValue[]): unknown {
    return (this.s.get(...a) as unknown as unknown[] | undefined)?.[0];
  }
  all(...a: SQLInputValue[]): unknown[] {
    return (this.s.all(...a) as unknown as unknown[][]).map((r) => r[0]);
  }
}

/** One connection. BLOBs are read as Uint8Array; a Uint8Array binds as a BLOB. */
export class Sqlite {
  readonly db: DatabaseSync;

  /** `timeout`: how long a statement waits for another connection's lock, in milliseconds. */
  constructor(file: string, opts: { timeout?: number } = {}) {
    this.db = new (driver().DatabaseSync)(file, { timeout: opts.timeout ?? 10_000 });
  }

  prepare(sql: string): StatementSync {
    return this.db.prepare(sql);
  }

  pluck(sql: string): Plucked {
    return new Plucked(this.db.prepare(sql));
  }

  exec(sql: string): void {
    this.db.exec(sql);
  }

  /** A pragma's value (the first column of its first row), or undefined when it returns none. */
  pragma(text: string): unknown {
    return this.pluck(`PRAGMA ${text}`).get();
  }

  /**
   * `run` in one transaction, committed when it returns and rolled back when it throws. IMMEDIATE
   * takes the write lock up front, so writers in other processes queue behind it instead of
   * failing to upgrade a read lock; DEFERRED pins one snapshot for reads.
   */
  transaction<T>(run: () => T, mode: 'IMMEDIATE' | 'DEFERRED' = 'DEFERRED'): T {
    this.db.exec(`BEGIN ${mode}`);
    try {
      const out = run();
      this.db.exec('COMMIT');
      return out;
    } catch (e) {
      if (this.db.isTransaction) this.db.exec('ROLLBACK');
      throw e;
    }
  }

  get inTransaction(): boolean {
    return this.db.isTransaction;
  }

  get open(): boolean {
    return this.db.isOpen;
  }

  close(): void {
    if (this.db.isOpen) this.db.close();
  }
}
