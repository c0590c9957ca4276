// The two ledger stores under one test interface: each test gets a fresh SQLite file or a fresh
// PostgreSQL database on the server the test project started, plus raw SQL to damage it with.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { inject } from 'vitest';
import { PgStore, SqliteStore, type LedgerStore } from '../../src/internal.js';
import { Sqlite } from '../../src/ledger/sqlite/driver.js';
import type { SQLInputValue } from 'node:sqlite';
import { runs } from '@svc/tools/system';

export type BackendName = 'sqlite' | 'postgres';
// PostgreSQL where its server binaries are (always under CI=true: tools/lib/system.mjs).
export const BACKENDS: BackendName[] = runs('postgres') ? ['sqlite', 'postgres'] : ['sqlite'];

export interface TestDb {
  name: BackendName;
  /** A file path (SQLite) or a database URL (PostgreSQL): what SVC_DATABASE_URL or a data folder would name. */
  location: string;
  open(): Promise<LedgerStore>;
  /**
   * Run SQL written once for both: tables as {leaves} {nodes} {heads} {tree}, parameters as ?.
   * Returns the rows.
   */
  sql(text: string, ...params: unknown[]): Promise<Record<string, unknown>[]>;
}

let counter = 0;

/** A new database on the test project's PostgreSQL server; returns its URL. */
export async function freshPgDatabase(): Promise<string> {
  const admin = new pg.Client(inject('pgUrl'));
  await admin.connect();
  const name = `t_${process.pid}_${Date.now().toString(36)}_${counter++}`;
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const u = new URL(inject('pgUrl'));
  u.pathname = `/${name}`;
  return u.toString();
}

const TABLES = {
  sqlite: { leaves: 'leaves', nodes: 'nodes', heads: 'heads', tree: 'tree' },
  postgres: { leaves: 'svc_leaves', nodes: 'svc_nodes', heads: 'svc_heads', tree: 'svc_tree' },
};

function rewrite(name: BackendName, text: string): string {
  let n = 0;
  const t = text.replace(/\{(leaves|nodes|heads|tree)\}/g, (_, k: keyof (typeof TABLES)['sqlite']) => TABLES[name][k]);
  return name === 'postgres' ? t.replace(/\?/g, () => `$${++n}`) : t;
}

/** The test interface over an existing SQLite file. */
export function sqliteDb(file: string): TestDb {
  return {
    name: 'sqlite',
    location: file,
    open: async () => new SqliteStore(file),
    sql: async (text, ...params) => {
      // A raw connection: opening a store would recreate what a test just dropped.
      const raw = new Sqlite(file, { timeout: 10_000 });
      try {
        const stmt = raw.prepare(rewrite('sqlite', text));
        const p = params as SQLInputValue[];
        return stmt.columns().length > 0 ? (stmt.all(...p) as Record<string, unknown>[]) : (stmt.run(...p), []);
      } finally {
        raw.close();
      }
    },
  };
}

/** The test interface over an existing PostgreSQL database. */
export function pgDb(url: string): TestDb {
  return {
    name: 'postgres',
    location: url,
    open: () => PgStore.open(url),
    sql: async (text, ...params) => {
      const c = new pg.Client(url);
      await c.connect();
      try {
        const p = params.map((x) => (x instanceof Uint8Array ? Buffer.from(x) : x));
        return (await c.query(rewrite('postgres', text), p)).rows;
      } finally {
        await c.end();
      }
    },
  };
}

/** A fresh, empty store of the named kind. */
export async function testDb(name: BackendName): Promise<TestDb> {
  return name === 'sqlite' ? sqliteDb(join(mkdtempSync(join(tmpdir(), 'svc-ledger-')), 'l.sqlite')) : pgDb(await freshPgDatabase());
}
