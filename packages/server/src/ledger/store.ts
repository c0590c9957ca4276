// SQLite storage for the log: leaves (answer hash and leaf hash), the hash of every complete
// subtree, and every signed head as a checkpoint. Any proof at any size costs O(log n) point reads.
import { createRequire } from 'node:module';
import type Database from 'better-sqlite3';
import { leafHash, nodeHash, type TreeReader } from '@svc/core';

export interface HeadRow {
  id: number;
  tree_size: number;
  root_hash: string;
  timestamp: number;
  signed: string;
  receipt: string;
  key_hex: string;
  recorded: number;
}

/** The storage interface a PostgreSQL backend would also implement. */
export interface LedgerStore extends TreeReader {
  size(): number;
  leafData(index: number): Uint8Array | undefined;
  leafHashAt(index: number): Uint8Array | undefined;
  findByData(data: Uint8Array): number | undefined;
  findByLeafHash(hash: Uint8Array): number | undefined;
  /** Append leaves and their complete subtrees, then run `seal` (which records the head) in the same transaction. */
  appendAndSeal<T>(data: Uint8Array[], seal: (newSize: number) => T): T;
  /** Changes whenever the stored log may have changed (any writer, any process). */
  version(): string;
  /** Run reads against one consistent snapshot, so a concurrent writer is never half-seen. */
  snapshot<T>(read: () => T): T;
  heads(afterId: number, limit: number): HeadRow[];
  latestHeads(limit: number): HeadRow[];
  headAtSize(size: number): HeadRow | undefined;
  headCount(): number;
  maxHeadSize(): number;
  insertHead(h: Omit<HeadRow, 'id'>): number;
  close(): void;
}

/**
 * The better-sqlite3 module: the installed one, or the package SVC_SQLITE_MODULE names.
 * scripts/start.mjs points it at better-sqlite3 13 on Node 24, where 12.x (the one Node 20 needs)
 * aborts the process when a prepared statement is garbage collected.
 */
function sqliteDriver(): typeof Database {
  const require = createRequire(import.meta.url);
  return require(process.env.SVC_SQLITE_MODULE || 'better-sqlite3') as typeof Database;
}

export class SqliteStore implements LedgerStore {
  readonly db: Database.Database;
  private readonly q;

  constructor(file: string) {
    this.db = new (sqliteDriver())(file, { timeout: 10_000 });
    this.db.pragma('journal_mode = WAL');
    // FULL: an acknowledged append survives power loss, not only a process crash.
    this.db.pragma('synchronous = FULL');
    // Proof reads are random point lookups: a larger page cache and memory-mapped reads keep the
    // tail latency down on large logs.
    this.db.pragma('cache_size = -65536');
    this.db.pragma('mmap_size = 1073741824');
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS leaves(idx INTEGER PRIMARY KEY, data BLOB NOT NULL, hash BLOB NOT NULL);
      CREATE INDEX IF NOT EXISTS leaves_data ON leaves(data, idx);
      CREATE INDEX IF NOT EXISTS leaves_hash ON leaves(hash, idx);
      CREATE TABLE IF NOT EXISTS nodes(level INTEGER NOT NULL, idx INTEGER NOT NULL, hash BLOB NOT NULL, PRIMARY KEY(level, idx)) WITHOUT ROWID;
      CREATE TABLE IF NOT EXISTS heads(id INTEGER PRIMARY KEY AUTOINCREMENT, tree_size INTEGER NOT NULL, root_hash TEXT NOT NULL,
        timestamp INTEGER NOT NULL, signed TEXT NOT NULL, receipt TEXT NOT NULL, key_hex TEXT NOT NULL, recorded INTEGER NOT NULL);
      CREATE INDEX IF NOT EXISTS heads_size ON heads(tree_size, id);
    `);
    const db = this.db;
    this.q = {
      size: db.prepare('SELECT COALESCE(MAX(idx) + 1, 0) AS n FROM leaves'),
      leafData: db.prepare('SELECT data FROM leaves WHERE idx = ?').pluck(),
      leafHash: db.prepare('SELECT hash FROM leaves WHERE idx = ?').pluck(),
      node: db.prepare('SELECT hash FROM nodes WHERE level = ? AND idx = ?').pluck(),
      byData: db.prepare('SELECT idx FROM leaves WHERE data = ? ORDER BY idx LIMIT 1').pluck(),
      byHash: db.prepare('SELECT idx FROM leaves WHERE hash = ? ORDER BY idx LIMIT 1').pluck(),
      insLeaf: db.prepare('INSERT INTO leaves(idx, data, hash) VALUES (?, ?, ?)'),
      insNode: db.prepare('INSERT OR REPLACE INTO nodes(level, idx, hash) VALUES (?, ?, ?)'),
      heads: db.prepare('SELECT * FROM heads WHERE id > ? ORDER BY id LIMIT ?'),
      latest: db.prepare('SELECT * FROM heads ORDER BY id DESC LIMIT ?'),
      atSize: db.prepare('SELECT * FROM heads WHERE tree_size = ? ORDER BY id LIMIT 1'),
      count: db.prepare('SELECT COUNT(*) AS n FROM heads'),
      maxSize: db.prepare('SELECT COALESCE(MAX(tree_size), 0) AS n FROM heads'),
      dataVersion: db.prepare('PRAGMA data_version').pluck(),
      insHead: db.prepare(
        'INSERT INTO heads(tree_size, root_hash, timestamp, signed, receipt, key_hex, recorded) VALUES (?, ?, ?, ?, ?, ?, ?)',
      ),
    };
  }

  size(): number {
    return (this.q.size.get() as { n: number }).n;
  }

  // Rows come back as Buffers, which are Uint8Arrays: returned as they are, without copies, since
  // proof reads sit on the hot path.
  leafData(index: number): Uint8Array | undefined {
    return this.q.leafData.get(index) as Buffer | undefined;
  }

  leafHashAt(index: number): Uint8Array | undefined {
    return this.q.leafHash.get(index) as Buffer | undefined;
  }

  subtree(level: number, index: number): Uint8Array {
    const h = (level === 0 ? this.q.leafHash.get(index) : this.q.node.get(level, index)) as Buffer | undefined;
    if (!h) throw new Error(`ledger store is missing subtree (${level}, ${index})`);
    return h;
  }

  findByData(data: Uint8Array): number | undefined {
    return this.q.byData.get(data) as number | undefined;
  }

  findByLeafHash(hash: Uint8Array): number | undefined {
    return this.q.byHash.get(hash) as number | undefined;
  }

  private writes = 0;

  version(): string {
    // data_version moves on commits by other connections; `writes` on this connection's own.
    return `${this.q.dataVersion.get() as number}:${this.writes}`;
  }

  snapshot<T>(read: () => T): T {
    // In WAL mode a deferred transaction pins the snapshot at its first read.
    return this.db.inTransaction ? read() : this.db.transaction(read).deferred();
  }

  appendAndSeal<T>(data: Uint8Array[], seal: (newSize: number) => T): T {
    const tx = this.db.transaction(() => {
      let n = this.size();
      // Subtrees completed in this batch are kept at hand; older left siblings are read once.
      const made = new Map<string, Uint8Array>();
      for (const d of data) {
        const idx = n++;
        let h = leafHash(d);
        this.q.insLeaf.run(idx, d, h);
        let level = 0;
        let i = idx;
        while (i % 2 === 1) {
          h = nodeHash(made.get(`${level}:${i - 1}`) ?? this.subtree(level, i - 1), h);
          level++;
          i = (i - 1) / 2;
          this.q.insNode.run(level, i, h);
          made.set(`${level}:${i}`, h);
        }
        if (level === 0) made.set(`0:${idx}`, h);
      }
      return seal(n);
    });
    this.writes++;
    // IMMEDIATE: take the write lock up front so concurrent writers in other processes queue.
    return tx.immediate();
  }

  heads(afterId: number, limit: number): HeadRow[] {
    return this.q.heads.all(afterId, limit) as HeadRow[];
  }

  latestHeads(limit: number): HeadRow[] {
    return this.q.latest.all(limit) as HeadRow[];
  }

  headAtSize(size: number): HeadRow | undefined {
    return this.q.atSize.get(size) as HeadRow | undefined;
  }

  headCount(): number {
    return (this.q.count.get() as { n: number }).n;
  }

  maxHeadSize(): number {
    return (this.q.maxSize.get() as { n: number }).n;
  }

  insertHead(h: Omit<HeadRow, 'id'>): number {
    return Number(this.q.insHead.run(h.tree_size, h.root_hash, h.timestamp, h.signed, h.receipt, h.key_hex, h.recorded).lastInsertRowid);
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}
