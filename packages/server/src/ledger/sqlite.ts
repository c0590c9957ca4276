// The embedded store: one SQLite file (WAL). Calls are synchronous underneath and wrapped in
// promises; a snapshot reads through a second connection whose transaction pins the WAL state, so
// the writer connection never sees another caller's open transaction.
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type Database from 'better-sqlite3';
import { fromHex, type NodeId } from '@svc/core';
import type { HeadRow, LeafRow, LedgerReads, LedgerStore, NewHead, Seal, Sequenced } from './store.js';
import { Writer } from './sqlite-write.js';
import type { FromWriter, ToWriter } from './sqlite-writer.js';

/**
 * The better-sqlite3 module: the installed one, or the package SVC_SQLITE_MODULE names.
 * scripts/start.mjs points it at better-sqlite3 13 on Node 24, where 12.x (the one Node 20 needs)
 * aborts the process when a prepared statement is garbage collected.
 */
function sqliteDriver(): typeof Database {
  const require = createRequire(import.meta.url);
  return require(process.env.SVC_SQLITE_MODULE || 'better-sqlite3') as typeof Database;
}

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS leaves(idx INTEGER PRIMARY KEY, data BLOB NOT NULL, hash BLOB NOT NULL);
  CREATE INDEX IF NOT EXISTS leaves_data8 ON leaves(substr(data, 1, 8));
  CREATE INDEX IF NOT EXISTS leaves_hash8 ON leaves(substr(hash, 1, 8));
  DROP INDEX IF EXISTS leaves_data;
  DROP INDEX IF EXISTS leaves_hash;
  CREATE TABLE IF NOT EXISTS nodes(level INTEGER NOT NULL, idx INTEGER NOT NULL, hash BLOB NOT NULL, PRIMARY KEY(level, idx)) WITHOUT ROWID;
  CREATE TABLE IF NOT EXISTS heads(id INTEGER PRIMARY KEY AUTOINCREMENT, tree_size INTEGER NOT NULL, root_hash TEXT NOT NULL,
    timestamp INTEGER NOT NULL, signed TEXT NOT NULL, receipt TEXT NOT NULL, key_hex TEXT NOT NULL, recorded INTEGER NOT NULL);
  CREATE INDEX IF NOT EXISTS heads_size ON heads(tree_size, id);
`;

export function open(file: string): Database.Database {
  const db = new (sqliteDriver())(file, { timeout: 10_000 });
  db.pragma('journal_mode = WAL');
  // FULL: an acknowledged append survives power loss, not only a process crash.
  db.pragma('synchronous = FULL');
  // Proof reads are random point lookups: a larger page cache and memory-mapped reads keep the
  // tail latency down on large logs.
  db.pragma('cache_size = -65536');
  db.pragma('mmap_size = 1073741824');
  return db;
}

/**
 * A statement prepared on first use: a damaged table then fails the reads that need it (which the
 * audit reports), not the opening of the whole store.
 */
export function lazy(db: Database.Database, sql: string, pluck = false): () => Database.Statement {
  let s: Database.Statement | undefined;
  return () => (s ??= pluck ? db.prepare(sql).pluck() : db.prepare(sql));
}

/** Synchronous reads over one connection; the async interface wraps them. */
export class Reads {
  private readonly q;
  constructor(db: Database.Database) {
    this.q = {
      size: lazy(db, 'SELECT COALESCE(MAX(idx) + 1, 0) AS n FROM leaves', true),
      leafRange: lazy(db, 'SELECT idx, data, hash FROM leaves WHERE idx >= ? AND idx < ? ORDER BY idx'),
      leafHash: lazy(db, 'SELECT hash FROM leaves WHERE idx = ?', true),
      node: lazy(db, 'SELECT hash FROM nodes WHERE level = ? AND idx = ?', true),
      // A missing subtree contributes nothing, so the text comes out short and is refused.
      nodes: lazy(
        db,
        `SELECT group_concat(lower(hex(CASE WHEN j.value ->> 0 = 0
                 THEN (SELECT hash FROM leaves WHERE idx = j.value ->> 1)
                 ELSE (SELECT hash FROM nodes WHERE level = j.value ->> 0 AND idx = j.value ->> 1) END)), '' ORDER BY j.key)
           FROM json_each(?) j`,
        true,
      ),
      // Lookups go through an index of the first 8 bytes (rowid order within it, so LIMIT 1 is the
      // lowest index): a third the size of an index of whole hashes, so appends touch fewer pages.
      byData: lazy(db, 'SELECT idx FROM leaves WHERE substr(data, 1, 8) = substr(?, 1, 8) AND data = ? ORDER BY idx LIMIT 1', true),
      byHash: lazy(db, 'SELECT idx FROM leaves WHERE substr(hash, 1, 8) = substr(?, 1, 8) AND hash = ? ORDER BY idx LIMIT 1', true),
      heads: lazy(db, 'SELECT * FROM heads WHERE id > ? ORDER BY id LIMIT ?'),
      latest: lazy(db, 'SELECT * FROM heads ORDER BY id DESC LIMIT ?'),
      atSize: lazy(db, 'SELECT * FROM heads WHERE tree_size = ? ORDER BY id LIMIT 1'),
      count: lazy(db, 'SELECT COUNT(*) FROM heads', true),
      maxSize: lazy(db, 'SELECT COALESCE(MAX(tree_size), 0) FROM heads', true),
    };
  }
  size = (): number => this.q.size().get() as number;
  // Rows come back as Buffers, which are Uint8Arrays: returned without copies (the proof hot path).
  // A proof's subtrees in one statement returning one hex string, cut into views of one buffer: a
  // Buffer per subtree from the driver made most of a proof's garbage, and so its latency tail.
  nodes = (ids: readonly NodeId[]): Uint8Array[] => {
    if (ids.length === 0) return [];
    const text = this.q.nodes().get(JSON.stringify(ids.map((x) => [x.level, x.index]))) as string | null;
    const all = typeof text === 'string' && text.length === 64 * ids.length ? fromHex(text) : null;
    if (!all) {
      const k = ids.findIndex(({ level, index }) => !(level === 0 ? this.q.leafHash().get(index) : this.q.node().get(level, index)));
      const id = ids[Math.max(0, k)]!;
      throw new Error(`ledger store is missing subtree (${id.level}, ${id.index})`);
    }
    return ids.map((_, k) => all.subarray(32 * k, 32 * k + 32));
  };
  leaves = (start: number, end: number): LeafRow[] => {
    const rows = this.q.leafRange().all(start, end) as { idx: number; data: Buffer; hash: Buffer }[];
    if (rows.length !== Math.max(0, end - start) || rows.some((r, k) => r.idx !== start + k)) {
      throw new Error(`ledger store is missing leaves in [${start}, ${end})`);
    }
    return rows.map((r) => ({ data: r.data, hash: r.hash }));
  };
  findByData = (d: Uint8Array) => this.q.byData().get(d, d) as number | undefined;
  findByLeafHash = (h: Uint8Array) => this.q.byHash().get(h, h) as number | undefined;
  heads = (afterId: number, limit: number) => this.q.heads().all(afterId, limit) as HeadRow[];
  latestHeads = (limit: number) => this.q.latest().all(limit) as HeadRow[];
  headAtSize = (size: number) => this.q.atSize().get(size) as HeadRow | undefined;
  headCount = () => this.q.count().get() as number;
  maxHeadSize = () => this.q.maxSize().get() as number;
}

/** The async face of synchronous reads: a throw becomes a rejection. */
function asyncReads(r: Reads): LedgerReads {
  const wrap =
    <A extends unknown[], R>(f: (...a: A) => R) =>
    async (...a: A): Promise<R> =>
      f(...a);
  return {
    size: wrap(r.size),
    nodes: wrap(r.nodes),
    leaves: wrap(r.leaves),
    findByData: wrap(r.findByData),
    findByLeafHash: wrap(r.findByLeafHash),
    heads: wrap(r.heads),
    latestHeads: wrap(r.latestHeads),
    headAtSize: wrap(r.headAtSize),
    headCount: wrap(r.headCount),
    maxHeadSize: wrap(r.maxHeadSize),
  };
}

export class SqliteStore implements LedgerStore {
  readonly kind = 'sqlite';
  readonly db: Database.Database;
  /** The connection snapshots read through (opened on first use). */
  private snap: { db: Database.Database; reads: LedgerReads } | null = null;
  private snapQueue: Promise<unknown> = Promise.resolve();
  private readonly reads: LedgerReads;
  private readonly writer: Writer;
  private readonly thread: WriterThread | null;
  private writes = 0;
  private readonly dataVersion;

  /**
   * `writerThread` (default: on for files) stores each batch from a writer thread with its own
   * connection, so a large batch does not stop the event loop while it is hashed and inserted.
   */
  constructor(
    readonly location: string,
    opts: { writerThread?: boolean } = {},
  ) {
    this.db = open(location);
    // A missing table is made again (empty), so lost history reads as a rollback against the
    // witness; a table that exists but is damaged is left alone for the audit to report, and a
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
    this.dataVersion = this.db.prepare('PRAGMA data_version').pluck();
  }

  size = () => this.reads.size();
  nodes = (ids: readonly NodeId[]) => this.reads.nodes(ids);
  leaves = (start: number, end: number) => this.reads.leaves(start, end);
  findByData = (d: Uint8Array) => this.reads.findByData(d);
  findByLeafHash = (h: Uint8Array) => this.reads.findByLeafHash(h);
  heads = (afterId: number, limit: number) => this.reads.heads(afterId, limit);
  latestHeads = (limit: number) => this.reads.latestHeads(limit);
  headAtSize = (size: number) => this.reads.headAtSize(size);
  headCount = () => this.reads.headCount();
  maxHeadSize = () => this.reads.maxHeadSize();

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
    const result = this.snapQueue.then(run, run);
    this.snapQueue = result.catch(() => undefined);
    return result;
  }

  async sequence(data: readonly Uint8Array[], seal: Seal): Promise<Sequenced> {
    try {
      if (this.thread) return await this.thread.sequence(data, seal);
      const b = this.writer.begin(data);
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

  /** A pragma on the connection that writes (the writer thread's when there is one): for tests. */
  async writerPragma(text: string): Promise<unknown> {
    return this.thread ? this.thread.pragma(text) : this.db.pragma(text, { simple: true });
  }

  async close(): Promise<void> {
    await this.thread?.close();
    if (this.snap?.db.open) this.snap.db.close();
    if (this.db.open) this.db.close();
  }
}

/**
 * The main thread's side of the writer thread: one request at a time, each answered once. A thread
 * that fails or exits rejects what was pending (its connection closes, so SQLite rolls the batch
 * back) and is replaced on the next call.
 */
class WriterThread {
  private worker: Worker | null = null;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly file: string) {}

  private call(msg: ToWriter): Promise<FromWriter> {
    this.worker ??= new Worker(new URL('./sqlite-writer.js', import.meta.url), { workerData: { file: this.file } });
    const w = this.worker;
    return new Promise((resolve, reject) => {
      const done = () => {
        w.off('message', onMessage);
        w.off('error', onError);
        w.off('exit', onExit);
      };
      const onMessage = (m: FromWriter) => {
        done();
        if (m.op === 'error') reject(new Error(m.message));
        else resolve(m);
      };
      const gone = (why: string) => {
        done();
        if (this.worker === w) this.worker = null;
        reject(new Error(`ledger writer thread ${why}`));
      };
      const onError = (e: Error) => gone(`failed: ${e.message}`);
      const onExit = (code: number) => gone(`exited (${code})`);
      w.on('message', onMessage);
      w.on('error', onError);
      w.on('exit', onExit);
      w.postMessage(msg);
    });
  }

  private serial<T>(run: () => Promise<T>): Promise<T> {
    const result = this.queue.then(run, run);
    this.queue = result.catch(() => undefined);
    return result;
  }

  sequence(data: readonly Uint8Array[], seal: Seal): Promise<Sequenced> {
    return this.serial(async () => {
      const b = (await this.call({ op: 'begin', data: [...data] })) as Extract<FromWriter, { op: 'begun' }>;
      let head: NewHead;
      try {
        head = seal(b.size, b.root, b.previous as HeadRow | undefined);
      } catch (e) {
        await this.call({ op: 'abort' }).catch(() => undefined);
        throw e;
      }
      const f = (await this.call({ op: 'finish', head })) as Extract<FromWriter, { op: 'finished' }>;
      return { firstIndex: b.firstIndex, head: { id: f.id, ...head }, frontier: b.frontier };
    });
  }

  pragma(text: string): Promise<unknown> {
    return this.serial(async () => ((await this.call({ op: 'pragma', text })) as Extract<FromWriter, { op: 'pragma' }>).value);
  }

  async close(): Promise<void> {
    await this.queue;
    const w = this.worker;
    this.worker = null;
    await w?.terminate();
  }
}
