// Where a mirror keeps the logs it mirrors, behind a narrow async interface (SQLite here, in its
// data folder; PostgreSQL in postgres.ts, shared by instances). Per log: the pending checkpoints it
// accepted (the recent ones, so an upload may end at any of them), the next entry, the entries and
// their leaf hashes, the subtree hashes of heights 8, 16, ... that tiles are made of, and the
// mirror checkpoint it cosigned. Every write is one transaction, durable before it returns:
// a package is committed whole or not at all, and the mirror checkpoint never moves backwards.
import type { StatementSync } from 'node:sqlite';
import type { MirrorLogState, WitnessState } from '@svc/core/tlog';
import { emptyRoot } from '@svc/core/merkle';
import { type Plucked, Sqlite } from '../ledger/sqlite/driver.js';

/** Pending checkpoints kept per log beyond the current one: uploads may end at any of them. */
export const KEPT_PENDING = 16;

/** A subtree hash of height `level` (a multiple of 8) at `index`, as tiles above level 0 hold them. */
export interface MirrorNode {
  level: number;
  index: number;
  hash: Uint8Array;
}

/** The add-checkpoint decision as the store runs it: on the current pending state, returning the next. */
export type PendingDecide<T> = (read: (origin: string) => WitnessState | null) => T;

export interface MirrorStates {
  /** What an upload is checked against (any recent copy will do: every value in it only grows). */
  state(origin: string): Promise<MirrorLogState>;
  /** Run each add-checkpoint decision in order on the pending checkpoints, keeping what they return, atomically. */
  transactPending<T extends { origin?: string; state?: WitnessState }>(
    decides: PendingDecide<T>[],
    now: number,
    origins: readonly string[],
  ): Promise<T[]>;
  /** Leaf hashes of entries [start, end), all held (the caller checked `next`). */
  leafHashes(origin: string, start: number, end: number): Promise<Uint8Array[]>;
  /** Stored subtree hashes of height `level` (8, 16, ...) at indexes [start, end). */
  nodes(origin: string, level: number, start: number, end: number): Promise<Uint8Array[]>;
  /** Entries [start, end). */
  entries(origin: string, start: number, end: number): Promise<Uint8Array[]>;
  /**
   * Keep an authenticated package: the entries from `start` (skipping those held), their leaf
   * hashes, the subtrees they complete, and the next entry moved to `start + entries.length` if that
   * is further. Durable on return.
   */
  putPackage(
    origin: string,
    start: number,
    entries: readonly Uint8Array[],
    hashes: readonly Uint8Array[],
    nodes: readonly MirrorNode[],
  ): Promise<void>;
  /** The pending checkpoint of that size as accepted (the log's verified lines), or null if not kept. */
  pendingCheckpoint(origin: string, size: number): Promise<string | null>;
  /** Make `checkpoint` the mirror checkpoint unless one of a larger size is; false then. */
  commit(origin: string, size: number, root: Uint8Array, checkpoint: string, now: number): Promise<boolean>;
  /** The mirror checkpoint as served (null before the first). */
  mirrored(origin: string): Promise<{ size: number; checkpoint: string } | null>;
  close(): Promise<void>;
}

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS mirror_logs(id INTEGER PRIMARY KEY, origin TEXT NOT NULL UNIQUE, next INTEGER NOT NULL DEFAULT 0,
    size INTEGER NOT NULL DEFAULT 0, root BLOB, checkpoint TEXT, updated INTEGER NOT NULL DEFAULT 0);
  CREATE TABLE IF NOT EXISTS mirror_pending(log INTEGER NOT NULL, size INTEGER NOT NULL, root BLOB NOT NULL, checkpoint TEXT NOT NULL,
    seq INTEGER NOT NULL, PRIMARY KEY(log, size)) WITHOUT ROWID;
  CREATE TABLE IF NOT EXISTS mirror_entries(log INTEGER NOT NULL, idx INTEGER NOT NULL, data BLOB NOT NULL, hash BLOB NOT NULL,
    PRIMARY KEY(log, idx)) WITHOUT ROWID;
  CREATE TABLE IF NOT EXISTS mirror_nodes(log INTEGER NOT NULL, level INTEGER NOT NULL, idx INTEGER NOT NULL, hash BLOB NOT NULL,
    PRIMARY KEY(log, level, idx)) WITHOUT ROWID;
`;

type Row = { id: number; next: number; size: number; root: Uint8Array | null; checkpoint: string | null };

export class SqliteMirrorStore implements MirrorStates {
  private readonly db: Sqlite;
  private readonly ids = new Map<string, number>();
  private readonly q;
  private readonly p: Record<'leafHashes' | 'entries' | 'nodes', Plucked>;

  constructor(file: string, origins: readonly string[]) {
    this.db = new Sqlite(file, { timeout: 10_000 });
    this.db.pragma('journal_mode = WAL');
    // FULL: a cosignature says the entries are durably kept; a power cut must not make it a lie.
    this.db.pragma('synchronous = FULL');
    this.db.pragma('mmap_size = 0');
    this.db.exec(SCHEMA);
    const add = this.db.prepare('INSERT INTO mirror_logs(origin) VALUES (?) ON CONFLICT(origin) DO NOTHING');
    for (const o of origins) add.run(o);
    for (const r of this.db.prepare('SELECT id, origin FROM mirror_logs').all() as { id: number; origin: string }[])
      this.ids.set(r.origin, r.id);
    this.q = {
      log: this.db.prepare('SELECT id, next, size, root, checkpoint FROM mirror_logs WHERE id = ?'),
      pending: this.db.prepare('SELECT size, root, checkpoint FROM mirror_pending WHERE log = ? ORDER BY seq DESC LIMIT ?'),
      pendingAt: this.db.prepare('SELECT checkpoint FROM mirror_pending WHERE log = ? AND size = ?'),
      putPending: this.db.prepare(
        'INSERT INTO mirror_pending(log, size, root, checkpoint, seq) VALUES (@log, @size, @root, @checkpoint, (SELECT coalesce(max(seq), 0) + 1 FROM mirror_pending WHERE log = @log)) ON CONFLICT(log, size) DO UPDATE SET root = excluded.root, checkpoint = excluded.checkpoint, seq = excluded.seq',
      ),
      prune: this.db.prepare(
        'DELETE FROM mirror_pending WHERE log = @log AND seq <= (SELECT seq FROM mirror_pending WHERE log = @log ORDER BY seq DESC LIMIT 1 OFFSET @keep)',
      ),
      putEntry: this.db.prepare('INSERT INTO mirror_entries(log, idx, data, hash) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING'),
      putNode: this.db.prepare('INSERT INTO mirror_nodes(log, level, idx, hash) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING'),
      advance: this.db.prepare('UPDATE mirror_logs SET next = max(next, ?) WHERE id = ?'),
      commit: this.db.prepare('UPDATE mirror_logs SET size = ?, root = ?, checkpoint = ?, updated = ? WHERE id = ? AND size <= ?'),
    } satisfies Record<string, StatementSync>;
    this.p = {
      leafHashes: this.db.pluck('SELECT hash FROM mirror_entries WHERE log = ? AND idx >= ? AND idx < ? ORDER BY idx'),
      entries: this.db.pluck('SELECT data FROM mirror_entries WHERE log = ? AND idx >= ? AND idx < ? ORDER BY idx'),
      nodes: this.db.pluck('SELECT hash FROM mirror_nodes WHERE log = ? AND level = ? AND idx >= ? AND idx < ? ORDER BY idx'),
    };
  }

  private id(origin: string): number {
    const id = this.ids.get(origin);
    if (id === undefined) throw new RangeError(`not a mirrored log: ${origin}`);
    return id;
  }

  private current(id: number): WitnessState | null {
    const r = this.q.pending.get(id, 1) as { size: number; root: Uint8Array; checkpoint: string } | undefined;
    return r ? { size: r.size, root: r.root, checkpoint: r.checkpoint } : null;
  }

  async state(origin: string): Promise<MirrorLogState> {
    const id = this.id(origin);
    return this.db.transaction(() => {
      const log = this.q.log.get(id) as Row;
      const pending = (this.q.pending.all(id, KEPT_PENDING) as { size: number; root: Uint8Array }[]).map((p) => ({
        size: p.size,
        root: p.root,
      }));
      return { pending, mirrored: { size: log.size, root: log.root ?? emptyRoot() }, next: log.next };
    });
  }

  async transactPending<T extends { origin?: string; state?: WitnessState }>(decides: PendingDecide<T>[]): Promise<T[]> {
    return this.db.transaction(
      () =>
        decides.map((decide) => {
          const answer = decide((o) => (this.ids.has(o) ? this.current(this.id(o)) : null));
          if (answer.state && answer.origin !== undefined && this.ids.has(answer.origin)) {
            const id = this.id(answer.origin);
            this.q.putPending.run({ log: id, size: answer.state.size, root: answer.state.root, checkpoint: answer.state.checkpoint });
            this.q.prune.run({ log: id, keep: KEPT_PENDING });
          }
          return answer;
        }),
      'IMMEDIATE',
    );
  }

  async leafHashes(origin: string, start: number, end: number): Promise<Uint8Array[]> {
    return this.rows(this.p.leafHashes.all(this.id(origin), start, end) as Uint8Array[], end - start, 'leaf hashes');
  }

  async entries(origin: string, start: number, end: number): Promise<Uint8Array[]> {
    return this.rows(this.p.entries.all(this.id(origin), start, end) as Uint8Array[], end - start, 'entries');
  }

  async nodes(origin: string, level: number, start: number, end: number): Promise<Uint8Array[]> {
    return this.rows(this.p.nodes.all(this.id(origin), level, start, end) as Uint8Array[], end - start, 'subtree hashes');
  }

  private rows(rows: Uint8Array[], want: number, what: string): Uint8Array[] {
    if (rows.length !== want) throw new Error(`the mirror holds ${rows.length} of the ${want} ${what} asked for`);
    return rows;
  }

  async putPackage(
    origin: string,
    start: number,
    entries: readonly Uint8Array[],
    hashes: readonly Uint8Array[],
    nodes: readonly MirrorNode[],
  ): Promise<void> {
    const id = this.id(origin);
    this.db.transaction(() => {
      for (let i = 0; i < entries.length; i++) this.q.putEntry.run(id, start + i, entries[i]!, hashes[i]!);
      for (const n of nodes) this.q.putNode.run(id, n.level, n.index, n.hash);
      this.q.advance.run(start + entries.length, id);
    }, 'IMMEDIATE');
  }

  async pendingCheckpoint(origin: string, size: number): Promise<string | null> {
    const r = this.q.pendingAt.get(this.id(origin), size) as { checkpoint: string } | undefined;
    return r?.checkpoint ?? null;
  }

  async commit(origin: string, size: number, root: Uint8Array, checkpoint: string, now: number): Promise<boolean> {
    const id = this.id(origin);
    return this.q.commit.run(size, root, checkpoint, now, id, size).changes === 1;
  }

  async mirrored(origin: string): Promise<{ size: number; checkpoint: string } | null> {
    const r = this.q.log.get(this.id(origin)) as Row;
    return r.checkpoint === null ? null : { size: r.size, checkpoint: r.checkpoint };
  }

  async close(): Promise<void> {
    this.db.close();
  }
}
