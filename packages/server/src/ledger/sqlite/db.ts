// One SQLite connection's worth of the ledger: the driver, the schema, how a connection is opened,
// and the reads. The store, its snapshot connection and the writer thread each open their own.
import type { StatementSync } from 'node:sqlite';
import { fromHex, type NodeId } from '@svc/core/merkle';
import { nativeHasher } from '../hasher.js';
import { type Plucked, Sqlite } from './driver.js';
import { StoreDamage, type HeadRow, type LeafRow, type LedgerReads } from '../store.js';

export const SCHEMA = `
  CREATE TABLE IF NOT EXISTS leaves(idx INTEGER PRIMARY KEY, data BLOB NOT NULL, hash BLOB NOT NULL);
  CREATE INDEX IF NOT EXISTS leaves_hash8 ON leaves(substr(hash, 1, 8));
  DROP INDEX IF EXISTS leaves_data8;
  DROP INDEX IF EXISTS leaves_data;
  DROP INDEX IF EXISTS leaves_hash;
  CREATE TABLE IF NOT EXISTS nodes(level INTEGER NOT NULL, idx INTEGER NOT NULL, hash BLOB NOT NULL, PRIMARY KEY(level, idx)) WITHOUT ROWID;
  CREATE TABLE IF NOT EXISTS heads(id INTEGER PRIMARY KEY AUTOINCREMENT, tree_size INTEGER NOT NULL, root_hash TEXT NOT NULL,
    timestamp INTEGER NOT NULL, signed TEXT NOT NULL, receipt TEXT NOT NULL, key_hex TEXT NOT NULL, recorded INTEGER NOT NULL);
  CREATE INDEX IF NOT EXISTS heads_size ON heads(tree_size, id);
`;

export function open(file: string): Sqlite {
  const db = new Sqlite(file, { timeout: 10_000 });
  db.pragma('journal_mode = WAL');
  // FULL: an acknowledged append survives power loss, not only a process crash.
  db.pragma('synchronous = FULL');
  // Proof reads are random point lookups: a larger page cache keeps the tail latency down on large
  // logs. No memory-mapped reads: a file that another process shrinks under a mapping raises SIGBUS
  // on the next read, which kills the process instead of failing the read.
  db.pragma('cache_size = -65536');
  db.pragma('mmap_size = 0');
  return db;
}

/**
 * A statement prepared on first use: a damaged table then fails the reads that need it (which the
 * audit reports), not the opening of the whole store.
 */
export function lazy(db: Sqlite, sql: string): () => StatementSync {
  let s: StatementSync | undefined;
  return () => (s ??= db.prepare(sql));
}

/** `lazy`, for a statement whose rows are their first column. */
export function lazyPluck(db: Sqlite, sql: string): () => Plucked {
  let s: Plucked | undefined;
  return () => (s ??= db.pluck(sql));
}

/** Synchronous reads over one connection; the async interface wraps them. */
export class Reads {
  private readonly q;
  constructor(db: Sqlite) {
    this.q = {
      size: lazyPluck(db, 'SELECT COALESCE(MAX(idx) + 1, 0) AS n FROM leaves'),
      leafRange: lazy(db, 'SELECT idx, data, hash FROM leaves WHERE idx >= ? AND idx < ? ORDER BY idx'),
      leafHash: lazyPluck(db, 'SELECT hash FROM leaves WHERE idx = ?'),
      node: lazyPluck(db, 'SELECT hash FROM nodes WHERE level = ? AND idx = ?'),
      // A missing subtree contributes nothing, so the text comes out short and is refused.
      nodes: lazyPluck(
        db,
        `SELECT group_concat(lower(hex(CASE WHEN j.value ->> 0 = 0
                 THEN (SELECT hash FROM leaves WHERE idx = j.value ->> 1)
                 ELSE (SELECT hash FROM nodes WHERE level = j.value ->> 0 AND idx = j.value ->> 1) END)), '' ORDER BY j.key)
           FROM json_each(?) j`,
      ),
      // Lookups go through one index of the first 8 bytes of the leaf hash (rowid order within it,
      // so LIMIT 1 is the lowest index): a third the size of an index of whole hashes, so appends
      // touch fewer pages. A lookup by data goes through its leaf hash, so appends keep one index.
      byHash: lazyPluck(db, 'SELECT idx FROM leaves WHERE substr(hash, 1, 8) = substr(?, 1, 8) AND hash = ? ORDER BY idx LIMIT 1'),
      byData: lazyPluck(
        db,
        'SELECT idx FROM leaves WHERE substr(hash, 1, 8) = substr(?, 1, 8) AND hash = ? AND data = ? ORDER BY idx LIMIT 1',
      ),
      heads: lazy(db, 'SELECT * FROM heads WHERE id > ? ORDER BY id LIMIT ?'),
      latest: lazy(db, 'SELECT * FROM heads ORDER BY id DESC LIMIT ?'),
      atSize: lazy(db, 'SELECT * FROM heads WHERE tree_size = ? ORDER BY id LIMIT 1'),
      count: lazyPluck(db, 'SELECT COUNT(*) FROM heads'),
      maxSize: lazyPluck(db, 'SELECT COALESCE(MAX(tree_size), 0) FROM heads'),
    };
  }
  size = (): number => this.q.size().get() as number;
  // A proof's subtrees in one statement returning one hex string, cut into views of one buffer: a
  // Uint8Array per subtree from the driver made most of a proof's garbage, and so its latency tail.
  nodes = (ids: readonly NodeId[]): Uint8Array[] => {
    if (ids.length === 0) return [];
    const text = this.q.nodes().get(JSON.stringify(ids.map((x) => [x.level, x.index]))) as string | null;
    const all = typeof text === 'string' && text.length === 64 * ids.length ? fromHex(text) : null;
    if (!all) {
      const k = ids.findIndex(({ level, index }) => !(level === 0 ? this.q.leafHash().get(index) : this.q.node().get(level, index)));
      const id = ids[Math.max(0, k)]!;
      throw new StoreDamage(`ledger store is missing subtree (${id.level}, ${id.index})`);
    }
    return ids.map((_, k) => all.subarray(32 * k, 32 * k + 32));
  };
  leaves = (start: number, end: number): LeafRow[] => {
    const rows = this.q.leafRange().all(start, end) as unknown as { idx: number; data: Uint8Array; hash: Uint8Array }[];
    if (rows.length !== Math.max(0, end - start) || rows.some((r, k) => r.idx !== start + k)) {
      throw new StoreDamage(`ledger store is missing leaves in [${start}, ${end})`);
    }
    // The driver's Uint8Arrays are returned as they are, without copies.
    return rows.map((r) => ({ data: r.data, hash: r.hash }));
  };
  findByData = (d: Uint8Array) => {
    const h = nativeHasher.leaf(d);
    return this.q.byData().get(h, h, d) as number | undefined;
  };
  findAllByData = (ds: readonly Uint8Array[]) => ds.map(this.findByData);
  findByLeafHash = (h: Uint8Array) => this.q.byHash().get(h, h) as number | undefined;
  heads = (afterId: number, limit: number) => this.q.heads().all(afterId, limit) as unknown as HeadRow[];
  latestHeads = (limit: number) => this.q.latest().all(limit) as unknown as HeadRow[];
  headAtSize = (size: number) => this.q.atSize().get(size) as unknown as HeadRow | undefined;
  headCount = () => this.q.count().get() as number;
  maxHeadSize = () => this.q.maxSize().get() as number;
}

/** The async face of synchronous reads: a throw becomes a rejection. */
export function asyncReads(r: Reads): LedgerReads {
  const wrap =
    <A extends unknown[], R>(f: (...a: A) => R) =>
    async (...a: A): Promise<R> =>
      f(...a);
  return {
    size: wrap(r.size),
    nodes: wrap(r.nodes),
    leaves: wrap(r.leaves),
    findByData: wrap(r.findByData),
    findAllByData: wrap(r.findAllByData),
    findByLeafHash: wrap(r.findByLeafHash),
    heads: wrap(r.heads),
    latestHeads: wrap(r.latestHeads),
    headAtSize: wrap(r.headAtSize),
    headCount: wrap(r.headCount),
    maxHeadSize: wrap(r.maxHeadSize),
  };
}
