// The mirror's logs in PostgreSQL, for several mirror instances on one database (same keys, same
// name, one copy of each log). The same tables and rules as mirror.sqlite: a pending-checkpoint
// group takes a transaction-scoped advisory lock per origin (in sorted order), so two instances
// never both move one log's pending checkpoint from the same size; a package is one transaction
// whose rows are inserted unless present (two instances may commit the same package: the copies
// are equal, both proved into consistent checkpoints); the mirror checkpoint moves only forward.
import type pg from 'pg';
import type { MirrorLogState, WitnessState } from '@svc/core/tlog';
import { emptyRoot } from '@svc/core/merkle';
import { cosignerPool, transaction } from '../witness/postgres.js';
import { KEPT_PENDING, type MirrorNode, type MirrorStates, type PendingDecide } from './store.js';

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS svc_mirror_logs(id serial PRIMARY KEY, origin text NOT NULL UNIQUE, next bigint NOT NULL DEFAULT 0,
    size bigint NOT NULL DEFAULT 0, root bytea, checkpoint text, updated bigint NOT NULL DEFAULT 0);
  CREATE TABLE IF NOT EXISTS svc_mirror_pending(log integer NOT NULL, size bigint NOT NULL, root bytea NOT NULL, checkpoint text NOT NULL,
    seq bigint NOT NULL, PRIMARY KEY(log, size));
  CREATE TABLE IF NOT EXISTS svc_mirror_entries(log integer NOT NULL, idx bigint NOT NULL, data bytea NOT NULL, hash bytea NOT NULL,
    PRIMARY KEY(log, idx));
  CREATE TABLE IF NOT EXISTS svc_mirror_nodes(log integer NOT NULL, level integer NOT NULL, idx bigint NOT NULL, hash bytea NOT NULL,
    PRIMARY KEY(log, level, idx));
`;

const bytes = (b: Buffer): Uint8Array => new Uint8Array(b.buffer, b.byteOffset, b.length);
const buf = (u: Uint8Array): Buffer => Buffer.from(u.buffer, u.byteOffset, u.byteLength);

export class PgMirrorStore implements MirrorStates {
  private constructor(
    private readonly pool: pg.Pool,
    private readonly ids: Map<string, number>,
  ) {}

  static async open(url: string, origins: readonly string[], onError?: (e: Error) => void): Promise<PgMirrorStore> {
    const pool = cosignerPool(url, 8, onError);
    try {
      // Instances starting together would race on CREATE TABLE IF NOT EXISTS: one lock for the schema.
      await transaction(pool, async (c) => {
        await c.query("SELECT pg_advisory_xact_lock(hashtextextended('svc_mirror_schema', 7))");
        await c.query(SCHEMA);
        await c.query('INSERT INTO svc_mirror_logs(origin) SELECT unnest($1::text[]) ON CONFLICT (origin) DO NOTHING', [origins]);
      });
      const { rows } = await pool.query('SELECT id, origin FROM svc_mirror_logs');
      return new PgMirrorStore(pool, new Map((rows as { id: number; origin: string }[]).map((r) => [r.origin, r.id])));
    } catch (e) {
      await pool.end().catch(() => undefined);
      throw e;
    }
  }

  private id(origin: string): number {
    const id = this.ids.get(origin);
    if (id === undefined) throw new RangeError(`not a mirrored log: ${origin}`);
    return id;
  }

  async state(origin: string): Promise<MirrorLogState> {
    const id = this.id(origin);
    const [log, pending] = await Promise.all([
      this.pool.query('SELECT next, size, root FROM svc_mirror_logs WHERE id = $1', [id]),
      this.pool.query('SELECT size, root FROM svc_mirror_pending WHERE log = $1 ORDER BY seq DESC LIMIT $2', [id, KEPT_PENDING]),
    ]);
    const l = log.rows[0] as { next: number; size: number; root: Buffer | null };
    return {
      pending: (pending.rows as { size: number; root: Buffer }[]).map((p) => ({ size: p.size, root: bytes(p.root) })),
      mirrored: { size: l.size, root: l.root ? bytes(l.root) : emptyRoot() },
      next: l.next,
    };
  }

  async transactPending<T extends { origin?: string; state?: WitnessState }>(
    decides: PendingDecide<T>[],
    _now: number,
    origins: readonly string[],
  ): Promise<T[]> {
    return transaction(this.pool, async (c) => {
      const sorted = [...new Set(origins)].filter((o) => this.ids.has(o)).sort();
      for (const o of sorted) await c.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 8))', [o]);
      const states = new Map<string, WitnessState | null>();
      for (const o of sorted) {
        const { rows } = await c.query('SELECT size, root, checkpoint FROM svc_mirror_pending WHERE log = $1 ORDER BY seq DESC LIMIT 1', [
          this.id(o),
        ]);
        const r = rows[0] as { size: number; root: Buffer; checkpoint: string } | undefined;
        states.set(o, r ? { size: r.size, root: bytes(r.root), checkpoint: r.checkpoint } : null);
      }
      const answers: T[] = [];
      for (const decide of decides) {
        // An origin not locked above (its body did not parse, or it is not mirrored) reads as null.
        const a = decide((o) => states.get(o) ?? null);
        if (a.state && a.origin !== undefined && sorted.includes(a.origin)) {
          states.set(a.origin, a.state);
          const id = this.id(a.origin);
          await c.query(
            'INSERT INTO svc_mirror_pending(log, size, root, checkpoint, seq) VALUES ($1, $2, $3, $4, (SELECT coalesce(max(seq), 0) + 1 FROM svc_mirror_pending WHERE log = $1)) ON CONFLICT (log, size) DO UPDATE SET root = excluded.root, checkpoint = excluded.checkpoint, seq = excluded.seq',
            [id, a.state.size, buf(a.state.root), a.state.checkpoint],
          );
          await c.query(
            'DELETE FROM svc_mirror_pending WHERE log = $1 AND seq <= (SELECT seq FROM svc_mirror_pending WHERE log = $1 ORDER BY seq DESC LIMIT 1 OFFSET $2)',
            [id, KEPT_PENDING],
          );
        } else if (a.state) throw new Error('a decision for an origin that was not locked');
        answers.push(a);
      }
      return answers;
    });
  }

  private async column(sql: string, params: unknown[], want: number, what: string): Promise<Uint8Array[]> {
    const { rows } = await this.pool.query({ text: sql, values: params, rowMode: 'array' });
    if (rows.length !== want) throw new Error(`the mirror holds ${rows.length} of the ${want} ${what} asked for`);
    return (rows as [Buffer][]).map((r) => bytes(r[0]));
  }

  leafHashes(origin: string, start: number, end: number): Promise<Uint8Array[]> {
    return this.column(
      'SELECT hash FROM svc_mirror_entries WHERE log = $1 AND idx >= $2 AND idx < $3 ORDER BY idx',
      [this.id(origin), start, end],
      end - start,
      'leaf hashes',
    );
  }

  entries(origin: string, start: number, end: number): Promise<Uint8Array[]> {
    return this.column(
      'SELECT data FROM svc_mirror_entries WHERE log = $1 AND idx >= $2 AND idx < $3 ORDER BY idx',
      [this.id(origin), start, end],
      end - start,
      'entries',
    );
  }

  nodes(origin: string, level: number, start: number, end: number): Promise<Uint8Array[]> {
    return this.column(
      'SELECT hash FROM svc_mirror_nodes WHERE log = $1 AND level = $2 AND idx >= $3 AND idx < $4 ORDER BY idx',
      [this.id(origin), level, start, end],
      end - start,
      'subtree hashes',
    );
  }

  async putPackage(
    origin: string,
    start: number,
    entries: readonly Uint8Array[],
    hashes: readonly Uint8Array[],
    nodes: readonly MirrorNode[],
  ): Promise<void> {
    const id = this.id(origin);
    await transaction(this.pool, async (c) => {
      // One statement for the package's rows: arrays unnested in order, index by ordinality.
      await c.query(
        'INSERT INTO svc_mirror_entries(log, idx, data, hash) SELECT $1, $2::bigint + n - 1, d, h FROM unnest($3::bytea[], $4::bytea[]) WITH ORDINALITY AS t(d, h, n) ON CONFLICT DO NOTHING',
        [id, start, entries.map(buf), hashes.map(buf)],
      );
      if (nodes.length > 0)
        await c.query(
          'INSERT INTO svc_mirror_nodes(log, level, idx, hash) SELECT $1, l, i, h FROM unnest($2::int[], $3::bigint[], $4::bytea[]) AS t(l, i, h) ON CONFLICT DO NOTHING',
          [id, nodes.map((n) => n.level), nodes.map((n) => n.index), nodes.map((n) => buf(n.hash))],
        );
      await c.query('UPDATE svc_mirror_logs SET next = GREATEST(next, $2) WHERE id = $1', [id, start + entries.length]);
    });
  }

  async pendingCheckpoint(origin: string, size: number): Promise<string | null> {
    const { rows } = await this.pool.query('SELECT checkpoint FROM svc_mirror_pending WHERE log = $1 AND size = $2', [
      this.id(origin),
      size,
    ]);
    return (rows[0] as { checkpoint: string } | undefined)?.checkpoint ?? null;
  }

  async commit(origin: string, size: number, root: Uint8Array, checkpoint: string, now: number): Promise<boolean> {
    const r = await this.pool.query(
      'UPDATE svc_mirror_logs SET size = $2, root = $3, checkpoint = $4, updated = $5 WHERE id = $1 AND size <= $2',
      [this.id(origin), size, buf(root), checkpoint, now],
    );
    return r.rowCount === 1;
  }

  async mirrored(origin: string): Promise<{ size: number; checkpoint: string } | null> {
    const { rows } = await this.pool.query('SELECT size, checkpoint FROM svc_mirror_logs WHERE id = $1', [this.id(origin)]);
    const r = rows[0] as { size: number; checkpoint: string | null };
    return r.checkpoint === null ? null : { size: r.size, checkpoint: r.checkpoint };
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
