// The witness's memory in PostgreSQL, for several witness instances (or a witness inside several
// svc serve instances) sharing one state: each group of requests runs in one transaction that
// first takes a transaction-scoped advisory lock per origin (in a fixed order), so two instances
// can never both pass a submission against the same old size.
import pg from 'pg';
import type { WitnessState } from '@svc/core/tlog';
import { PG_TIMEOUTS } from '../ledger/postgres/store.js';
import type { WitnessStates } from './store.js';

const SCHEMA = `CREATE TABLE IF NOT EXISTS svc_witnessed(
  origin text PRIMARY KEY, size bigint NOT NULL, root bytea NOT NULL, checkpoint text NOT NULL, updated bigint NOT NULL)`;

const types = {
  getTypeParser: ((oid: number, format?: string) =>
    oid === 20 ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
};

/**
 * A pool for a cosigner's state (a witness's, a mirror's): bigints as numbers, every call bounded
 * by the ledger's timeouts, errors of idle connections reported and never thrown.
 */
export function cosignerPool(url: string, max: number, onError?: (e: Error) => void): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max,
    types,
    connectionTimeoutMillis: PG_TIMEOUTS.callMs,
    query_timeout: PG_TIMEOUTS.callMs,
    idle_in_transaction_session_timeout: PG_TIMEOUTS.idleInTransactionMs,
    keepAlive: true,
  });
  pool.on('error', (e) => onError?.(e));
  pool.on('connect', (c) => c.on('error', () => undefined));
  return pool;
}

/** `run` inside one transaction on one connection of the pool: committed if it returns, rolled back if it throws. */
export async function transaction<T>(pool: pg.Pool, run: (c: pg.PoolClient) => Promise<T>): Promise<T> {
  const c = await pool.connect();
  try {
    await c.query('BEGIN');
    const out = await run(c);
    await c.query('COMMIT');
    return out;
  } catch (e) {
    await c.query('ROLLBACK').catch(() => undefined);
    throw e;
  } finally {
    c.release();
  }
}

export class PgWitnessStore implements WitnessStates {
  private constructor(private readonly pool: pg.Pool) {}

  static async open(url: string, onError?: (e: Error) => void): Promise<PgWitnessStore> {
    const pool = cosignerPool(url, 4, onError);
    try {
      await pool.query(SCHEMA);
    } catch (e) {
      await pool.end().catch(() => undefined);
      throw e;
    }
    return new PgWitnessStore(pool);
  }

  async get(origin: string): Promise<WitnessState | null> {
    const { rows } = await this.pool.query('SELECT size, root, checkpoint FROM svc_witnessed WHERE origin = $1', [origin]);
    const r = rows[0] as { size: number; root: Buffer; checkpoint: string } | undefined;
    return r ? { size: r.size, root: new Uint8Array(r.root), checkpoint: r.checkpoint } : null;
  }

  async transactAll<T extends { origin?: string; state?: WitnessState }>(
    decides: ((read: (origin: string) => WitnessState | null) => T)[],
    now: number,
    origins: readonly string[],
  ): Promise<T[]> {
    return transaction(this.pool, async (c) => {
      const sorted = [...new Set(origins)].sort();
      for (const o of sorted) await c.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 7))', [o]);
      const states = new Map<string, WitnessState | null>();
      if (sorted.length > 0) {
        const { rows } = await c.query('SELECT origin, size, root, checkpoint FROM svc_witnessed WHERE origin = ANY($1)', [sorted]);
        for (const r of rows as { origin: string; size: number; root: Buffer; checkpoint: string }[])
          states.set(r.origin, { size: r.size, root: new Uint8Array(r.root), checkpoint: r.checkpoint });
      }
      const answers: T[] = [];
      const changed = new Set<string>();
      for (const decide of decides) {
        // An origin not locked above (its body did not parse) cannot be granted a state: read as null.
        const a = decide((o) => states.get(o) ?? null);
        if (a.state && a.origin !== undefined && sorted.includes(a.origin)) {
          states.set(a.origin, a.state);
          changed.add(a.origin);
        } else if (a.state) throw new Error('a decision for an origin that was not locked');
        answers.push(a);
      }
      for (const o of changed) {
        const s = states.get(o)!;
        await c.query(
          'INSERT INTO svc_witnessed(origin, size, root, checkpoint, updated) VALUES ($1, $2, $3, $4, $5) ON CONFLICT(origin) DO UPDATE SET size = excluded.size, root = excluded.root, checkpoint = excluded.checkpoint, updated = excluded.updated',
          [o, s.size, Buffer.from(s.root), s.checkpoint, now],
        );
      }
      return answers;
    });
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
