// The embedded store: one SQLite file (WAL). Calls are synchronous underneath and wrapped in
// promises; a snapshot reads through a second connection whose transaction pins the WAL state, so
// the writer connection never sees another caller's open transaction.
import type { Plucked, Sqlite } from './driver.js';
import { serially } from '../serial.js';
import { asyncReads, open, Reads, SCHEMA } from './db.js';
import { WriterThread } from './thread.js';
import { Writer } from './write.js';
import type { AsyncSeal, LedgerReads, LedgerStore, NewHead, Presealed, Seal, Sequenced } from '../store.js';
import { StoreReads } from '../store-reads.js';

export class SqliteStore extends StoreReads implements LedgerStore {
  readonly kind = 'sqlite';
  readonly db: Sqlite;
  /** The connection snapshots read through (opened on first use). */
  private snap: { db: Sqlite; reads: LedgerReads } | null = null;
  private readonly oneSnapshot = serially();
  protected readonly reads: LedgerReads;
  private readonly writer: Writer;
  private readonly thread: WriterThread | null;
  private writes = 0;
  private readonly dataVersion: Plucked;

  /**
   * `writerThread` (default: on for files) stores each batch from a writer thread with its own
   * connection, so a large batch does not stop the event loop while it is hashed and inserted.
   */
  constructor(
    readonly location: string,
    opts: { writerThread?: boolean } = {},
  ) {
    super();
    this.db = open(location);
    // A missing table is made again (empty), so lost history reads as a rollback against the
    // high-water mark; a table that exists but is damaged is left alone for the audit to report, and a
    // statement it breaks does not stop the store from opening.
    for (const stmt of SCHEMA.split(';')
      .map((x) => x.trim())
      .filter(Boolean)) {
      try {
        this.db.exec(stmt);
      } catch {
        // reported by the reads that need it
      }
    }
    this.reads = asyncReads(new Reads(this.db));
    this.writer = new Writer(this.db);
    this.thread = (opts.writerThread ?? location !== ':memory:') ? new WriterThread(location) : null;
    this.dataVersion = this.db.pluck('PRAGMA data_version');
  }

  async version(): Promise<string> {
    // data_version moves on commits by other connections; `writes` on this connection's own.
    return `${this.dataVersion.get() as number}:${this.writes}`;
  }

  snapshot<T>(read: (r: LedgerReads) => Promise<T>): Promise<T> {
    // One snapshot at a time on the snapshot connection; a deferred transaction in WAL mode pins
    // the state at its first read and holds it until COMMIT.
    const run = async (): Promise<T> => {
      // An in-memory database has one connection and no other writer: reads are already consistent.
      if (this.location === ':memory:') return read(this.reads);
      if (!this.snap) {
        const db = open(this.location);
        this.snap = { db, reads: asyncReads(new Reads(db)) };
      }
      const { db, reads } = this.snap;
      db.exec('BEGIN');
      try {
        return await read(reads);
      } finally {
        if (db.inTransaction) db.exec('COMMIT');
      }
    };
    return this.oneSnapshot(run);
  }

  async sequence(data: readonly Uint8Array[], seal: Seal, presealed?: Presealed): Promise<Sequenced> {
    try {
      if (this.thread) return await this.thread.sequence(data, seal, presealed);
      // Inline, the two halves and the seal run in one synchronous stretch: any await between them
      // would let another read on this same connection see the batch before it is committed.
      const b = this.writer.begin(data, presealed);
      if (b.committed !== undefined)
        return { firstIndex: b.firstIndex, head: { id: b.committed, ...presealed!.head }, frontier: b.frontier };
      let head: NewHead;
      try {
        head = seal(b.size, b.root, b.previous);
      } catch (e) {
        this.writer.abort();
        throw e;
      }
      return { firstIndex: b.firstIndex, head: { id: this.writer.finish(head), ...head }, frontier: b.frontier };
    } finally {
      this.writes++;
    }
  }

  /**
   * `sequence` with a seal that may be asynchronous (the storage process asks the server's process
   * to sign): only through the writer thread, whose transaction no other read shares.
   */
  async sequenceAsync(data: readonly Uint8Array[], seal: AsyncSeal, presealed?: Presealed): Promise<Sequenced> {
    if (!this.thread) throw new Error('an asynchronous seal needs the writer thread');
    try {
      return await this.thread.sequence(data, seal, presealed);
    } finally {
      this.writes++;
    }
  }

  /** Round trips to the writer thread so far (each is two crossings): for tests. */
  writerRoundTrips(): number {
    return this.thread?.roundTrips ?? 0;
  }

  /** A pragma on the connection that writes (the writer thread's when there is one): for tests. */
  async writerPragma(text: string): Promise<unknown> {
    return this.thread ? this.thread.pragma(text) : this.db.pragma(text);
  }

  async close(): Promise<void> {
    await this.thread?.close();
    this.snap?.db.close();
    this.db.close();
  }
}
