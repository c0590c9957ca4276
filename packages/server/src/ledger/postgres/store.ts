// The networked store: PostgreSQL, shared by any number of server and issuing processes. One row
// (svc_tree) holds the size; the sequencer takes it FOR UPDATE, so exactly one writer assigns
// indices at a time and a writer that dies releases it with its connection.
import pg from 'pg';
import { frontier, integrate, type NodeId } from '@svc/core/merkle';
import { nativeHasher } from '../hasher.js';
import { redactUrl } from './url.js';
import { readInclusion } from '../reads.js';
import {
  StoreDamage,
  type EntrySubject,
  type HeadRow,
  type InclusionRead,
  type LeafRow,
  type LedgerReads,
  type LedgerStore,
  type Seal,
  type Sequenced,
} from '../store.js';
import { StoreReads } from '../store-reads.js';

const LOCK_MIGRATE = 727_001; // pg_advisory_xact_lock key: instances starting together migrate once

/** Schema migrations, applied in order under an advisory lock; the index is the schema version. */
const MIGRATIONS = [
  `CREATE TABLE svc_tree(id smallint PRIMARY KEY CHECK (id = 1), size bigint NOT NULL, version bigint NOT NULL);
   INSERT INTO svc_tree VALUES (1, 0, 0);
   CREATE TABLE svc_leaves(idx bigint PRIMARY KEY, data bytea NOT NULL, hash bytea NOT NULL);
   CREATE INDEX svc_leaves_data ON svc_leaves(data, idx);
   CREATE INDEX svc_leaves_hash ON svc_leaves(hash, idx);
   CREATE TABLE svc_nodes(level smallint NOT NULL, idx bigint NOT NULL, hash bytea NOT NULL, PRIMARY KEY(level, idx));
   CREATE TABLE svc_heads(id bigserial PRIMARY KEY, tree_size bigint NOT NULL, root_hash text NOT NULL, timestamp bigint NOT NULL,
     signed text NOT NULL, receipt text NOT NULL, key_hex text NOT NULL, recorded bigint NOT NULL);
   CREATE INDEX svc_heads_size ON svc_heads(tree_size, id);
   -- Any change to the log, by the sequencer or by anyone else, moves the version, so every
   -- instance's audit looks again instead of trusting what it saw before.
   CREATE FUNCTION svc_touch() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN UPDATE svc_tree SET version = version + 1; RETURN NULL; END $$;
   CREATE TRIGGER svc_leaves_touch AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON svc_leaves FOR EACH STATEMENT EXECUTE FUNCTION svc_touch();
   CREATE TRIGGER svc_nodes_touch AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON svc_nodes FOR EACH STATEMENT EXECUTE FUNCTION svc_touch();
   CREATE TRIGGER svc_heads_touch AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON svc_heads FOR EACH STATEMENT EXECUTE FUNCTION svc_touch();`,
  // A lookup by data goes through its leaf hash: one index fewer for every append to maintain.
  'DROP INDEX IF EXISTS svc_leaves_data',
];

// int8 as number (sizes and ids stay below 2^53); everything else as pg parses it.
const types = {
  getTypeParser: ((oid: number, format?: string) =>
    oid === 20 ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
};

type Queryable = Pick<pg.PoolClient, 'query'>;

const buf = (d: Uint8Array): Buffer => Buffer.from(d.buffer, d.byteOffset, d.byteLength);

const SIZE = `SELECT LEAST(t.size, COALESCE((SELECT max(idx) + 1 FROM svc_leaves), 0)) AS n FROM svc_tree t WHERE t.id = 1`;
const BY_DATA = 'SELECT idx FROM svc_leaves WHERE hash = $1 AND data = $2 ORDER BY idx LIMIT 1';
const BY_HASH = 'SELECT idx FROM svc_leaves WHERE hash = $1 ORDER BY idx LIMIT 1';

const SQL = {
  size: SIZE,
  // An inclusion proof's first step in one round trip: the size and the lookup, which it read on
  // two pooled connections at once.
  locateData: `SELECT (${SIZE}) AS n, (${BY_DATA}) AS idx`,
  locateHash: `SELECT (${SIZE}) AS n, (${BY_HASH}) AS idx`,
  nodes: `SELECT q.ord, COALESCE(n.hash, l.hash) AS hash
            FROM unnest($1::int[], $2::bigint[]) WITH ORDINALITY AS q(level, idx, ord)
            LEFT JOIN svc_nodes n ON q.level > 0 AND n.level = q.level AND n.idx = q.idx
            LEFT JOIN svc_leaves l ON q.level = 0 AND l.idx = q.idx
           ORDER BY q.ord`,
  leaves: 'SELECT idx, data, hash FROM svc_leaves WHERE idx >= $1 AND idx < $2 ORDER BY idx',
  byData: BY_DATA,
  byHash: BY_HASH,
  allByData: `SELECT (SELECT l.idx FROM svc_leaves l WHERE l.hash = q.hash AND l.data = q.data ORDER BY l.idx LIMIT 1) AS idx
                FROM unnest($1::bytea[], $2::bytea[]) WITH ORDINALITY AS q(hash, data, ord)
               ORDER BY q.ord`,
  heads: 'SELECT * FROM svc_heads WHERE id > $1 ORDER BY id LIMIT $2',
  latest: 'SELECT * FROM svc_heads ORDER BY id DESC LIMIT $1',
  atSize: 'SELECT * FROM svc_heads WHERE tree_size = $1 ORDER BY id LIMIT 1',
  count: 'SELECT count(*)::bigint AS n FROM svc_heads',
  maxSize: 'SELECT COALESCE(max(tree_size), 0)::bigint AS n FROM svc_heads',
};

// Each read is a named statement: PostgreSQL parses and plans it once per connection.
const NAMES = new Map(Object.entries(SQL).map(([k, text]) => [text, `svc_${k}`]));
const q = (text: string, values: unknown[] = []) => ({ name: NAMES.get(text), text, values });

function readsOn(c: Queryable): LedgerReads {
  const one = async <T>(text: string, values: unknown[] = []): Promise<T | undefined> =>
    (await c.query(q(text, values))).rows[0] as T | undefined;
  return {
    size: async () => (await one<{ n: number }>(SQL.size))?.n ?? 0,
    nodes: async (ids: readonly NodeId[]) => {
      if (ids.length === 0) return [];
      const { rows } = await c.query(q(SQL.nodes, [ids.map((x) => x.level), ids.map((x) => x.index)]));
      return rows.map((r: { hash: Buffer | null }, k: number) => {
        if (!r.hash) throw new StoreDamage(`ledger store is missing subtree (${ids[k]!.level}, ${ids[k]!.index})`);
        return r.hash;
      });
    },
    leaves: async (start: number, end: number): Promise<LeafRow[]> => {
      const { rows } = await c.query(q(SQL.leaves, [start, end]));
      if (rows.length !== Math.max(0, end - start) || rows.some((r: { idx: number }, k: number) => r.idx !== start + k)) {
        throw new StoreDamage(`ledger store is missing leaves in [${start}, ${end})`);
      }
      return rows.map((r: { data: Buffer; hash: Buffer }) => ({ data: r.data, hash: r.hash }));
    },
    findByData: async (d) => (await one<{ idx: number }>(SQL.byData, [nativeHasher.leaf(d), buf(d)]))?.idx,
    findAllByData: async (ds) => {
      if (ds.length === 0) return [];
      const { rows } = await c.query(q(SQL.allByData, [ds.map((d) => buf(nativeHasher.leaf(d))), ds.map(buf)]));
      return rows.map((r: { idx: number | null }) => r.idx ?? undefined);
    },
    findByLeafHash: async (h) => (await one<{ idx: number }>(SQL.byHash, [buf(h)]))?.idx,
    heads: async (afterId, limit) => (await c.query(q(SQL.heads, [afterId, limit]))).rows as HeadRow[],
    latestHeads: async (limit) => (await c.query(q(SQL.latest, [limit]))).rows as HeadRow[],
    headAtSize: async (size) => one<HeadRow>(SQL.atSize, [size]),
    headCount: async () => (await one<{ n: number }>(SQL.count))!.n,
    maxHeadSize: async () => (await one<{ n: number }>(SQL.maxSize))!.n,
  };
}

/** How long a silent database or a frozen writer may hold a call or the writer role. */
export const PG_TIMEOUTS = { callMs: 10_000, idleInTransactionMs: 10_000 };

export interface PgStoreOptions {
  max?: number;
  onError?: (e: Error) => void;
  /** Connecting, waiting for a pooled connection, and each query. */
  timeoutMs?: number;
  idleInTransactionMs?: number;
}

export class PgStore extends StoreReads implements LedgerStore {
  readonly kind = 'postgres';
  readonly location: string;
  protected readonly reads: LedgerReads;

  private constructor(
    readonly pool: pg.Pool,
    url: string,
  ) {
    super();
    this.location = redactUrl(url);
    this.reads = readsOn(pool);
  }

  /**
   * Connect, create or migrate the schema, and return the store. Rejects if the database cannot be
   * reached. The timeouts (ms) are for tests; the defaults are what a deployment gets.
   */
  static async open(url: string, opts: PgStoreOptions = {}): Promise<PgStore> {
    const pool = new pg.Pool({
      connectionString: url,
      max: opts.max ?? 8,
      types,
      // A database that stops answering (stopped, partitioned) fails the call instead of holding
      // it, and the request behind it, forever.
      connectionTimeoutMillis: opts.timeoutMs ?? PG_TIMEOUTS.callMs,
      query_timeout: opts.timeoutMs ?? PG_TIMEOUTS.callMs,
      // A writer that freezes inside the sequencing transaction (stopped, partitioned, a stalled
      // VM) loses its session, so the tree row and the writer role go to another process; its batch
      // is rolled back and never acknowledged. A killed writer's socket closes at once anyway.
      idle_in_transaction_session_timeout: opts.idleInTransactionMs ?? PG_TIMEOUTS.idleInTransactionMs,
      keepAlive: true,
    });
    // A connection that dies while idle (a restarted database) must not take the process with it.
    pool.on('error', (e) => opts.onError?.(e));
    // Nor one that dies after it was released as broken (pg_terminate_backend's message can arrive
    // once the pool has stopped listening): every connection keeps a listener for its whole life.
    pool.on('connect', (c) => c.on('error', () => undefined));
    try {
      await migrate(pool);
    } catch (e) {
      await pool.end().catch(() => undefined);
      throw e;
    }
    return new PgStore(pool, url);
  }

  override proveInclusion(subject: EntrySubject, treeSize: number | undefined, withRoot: boolean): Promise<InclusionRead> {
    return readInclusion(this, subject, treeSize, withRoot, async (s) => {
      const { rows } = await this.pool.query(
        s.data ? q(SQL.locateData, [nativeHasher.leaf(s.data), buf(s.data)]) : q(SQL.locateHash, [buf(s.leaf!)]),
      );
      const r = rows[0] as { n: number | null; idx: number | null } | undefined;
      return [r?.n ?? 0, r?.idx ?? undefined];
    });
  }

  async version(): Promise<string> {
    const { rows } = await this.pool.query({ name: 'svc_version', text: 'SELECT size, version FROM svc_tree WHERE id = 1' });
    const r = rows[0] as { size: number; version: number } | undefined;
    return r ? `${r.size}:${r.version}` : 'no-tree-row';
  }

  async snapshot<T>(read: (r: LedgerReads) => Promise<T>): Promise<T> {
    return this.transaction('BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY', (c) => read(readsOn(c)));
  }

  async sequence(data: readonly Uint8Array[], seal: Seal): Promise<Sequenced> {
    return this.transaction('BEGIN', async (c) => {
      const tree = (await c.query('SELECT size FROM svc_tree WHERE id = 1 FOR UPDATE')).rows[0] as { size: number } | undefined;
      if (!tree) throw new Error('ledger store has no tree row');
      const size = tree.size;
      const r = readsOn(c);
      const done = integrate(size, await r.nodes(frontier(size)), data, nativeHasher);
      const leaves = done.nodes.filter((n) => n.level === 0);
      const inner = done.nodes.filter((n) => n.level > 0);
      if (leaves.length > 0) {
        await c.query('INSERT INTO svc_leaves(idx, data, hash) SELECT * FROM unnest($1::bigint[], $2::bytea[], $3::bytea[])', [
          leaves.map((n) => n.index),
          data.map(buf),
          leaves.map((n) => Buffer.from(n.hash)),
        ]);
      }
      if (inner.length > 0) {
        await c.query('INSERT INTO svc_nodes(level, idx, hash) SELECT * FROM unnest($1::smallint[], $2::bigint[], $3::bytea[])', [
          inner.map((n) => n.level),
          inner.map((n) => n.index),
          inner.map((n) => Buffer.from(n.hash)),
        ]);
      }
      const newSize = size + data.length;
      const h = seal(newSize, done.root, (await r.latestHeads(1))[0]);
      const id = (
        await c.query(
          'INSERT INTO svc_heads(tree_size, root_hash, timestamp, signed, receipt, key_hex, recorded) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id',
          [h.tree_size, h.root_hash, h.timestamp, h.signed, h.receipt, h.key_hex, h.recorded],
        )
      ).rows[0].id as number;
      await c.query('UPDATE svc_tree SET size = $1, version = version + 1 WHERE id = 1', [newSize]);
      return { firstIndex: size, head: { id, ...h }, frontier: done.frontier };
    });
  }

  private async transaction<T>(begin: string, body: (c: pg.PoolClient) => Promise<T>): Promise<T> {
    const { c, release } = await checkout(this.pool);
    let broken = false;
    try {
      await c.query(begin);
      const out = await body(c);
      await c.query('COMMIT');
      return out;
    } catch (e) {
      try {
        // Briefly: after a read timeout the connection may still be busy with the lost query.
        await c.query({ text: 'ROLLBACK', query_timeout: 2_000 } as pg.QueryConfig);
      } catch {
        broken = true;
      }
      throw e;
    } finally {
      release(broken);
    }
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}

/**
 * A pooled connection for several queries. While it is checked out, a connection that dies between
 * two queries (the database restarted; this process was frozen past the idle-transaction timeout)
 * emits 'error' with no query to take it, which would end the process: it is caught here, the next
 * query fails, and the connection is discarded instead of going back to the pool.
 */
async function checkout(pool: pg.Pool): Promise<{ c: pg.PoolClient; release: (broken: boolean) => void }> {
  const c = await pool.connect();
  let lost = false;
  const onError = () => {
    lost = true;
  };
  c.on('error', onError);
  return {
    c,
    release: (broken) => {
      c.off('error', onError);
      c.release(broken || lost);
    },
  };
}

async function migrate(pool: pg.Pool): Promise<void> {
  const { c, release } = await checkout(pool);
  let broken = false;
  try {
    await c.query('BEGIN');
    await c.query('SELECT pg_advisory_xact_lock($1)', [LOCK_MIGRATE]);
    await c.query('CREATE TABLE IF NOT EXISTS svc_schema(version integer NOT NULL)');
    const row = (await c.query('SELECT version FROM svc_schema')).rows[0] as { version: number } | undefined;
    const from = row?.version ?? 0;
    if (from > MIGRATIONS.length)
      throw new Error(`the database schema (version ${from}) is newer than this server knows (${MIGRATIONS.length})`);
    for (let v = from; v < MIGRATIONS.length; v++) await c.query(MIGRATIONS[v]!);
    if (row) await c.query('UPDATE svc_schema SET version = $1', [MIGRATIONS.length]);
    else await c.query('INSERT INTO svc_schema(version) VALUES ($1)', [MIGRATIONS.length]);
    await c.query('COMMIT');
  } catch (e) {
    await c.query('ROLLBACK').catch(() => {
      broken = true;
    });
    throw e;
  } finally {
    release(broken);
  }
}
