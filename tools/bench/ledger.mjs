// Ledger benchmarks, each beside a baseline of the same database measured in the same run:
// - sustained appends with one signed head per second: SQLite (one process) against raw batched
//   inserts, PostgreSQL (four concurrent appending processes) against raw batched inserts;
// - proof latency: SQLite at 10^6 leaves (10^7 with --large), PostgreSQL at 10^6;
// - the history check's cost for one new checkpoint.
import { onNode24 } from '../lib/node24.mjs';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { namesFor } from '@svc/core';
import { leafHash, nodeHash } from '@svc/core/merkle';
import { testKeys } from '@svc/core/testing';
import { Ledger, MemoryHighWater, PgStore, ProcessStore, SqliteStore } from '../../packages/server/dist/internal.js';
import { startPostgres } from '../lib/postgres.mjs';
import { line, percentiles } from './util.mjs';
import { benchCheckpoints, exportBench, tileBench } from './tlog.mjs';
import { pgFloor } from './pg-floor.mjs';

// Loaded when first used, so that importing this file on an older Node fails no earlier than that.
const sqlite = () => process.getBuiltinModule('node:sqlite');

// The server and its SQLite need Node 24: run again on it when this Node is older.
onNode24();

const K = testKeys('bench-2026');
const APPENDER = fileURLToPath(new URL('./ledger-append.mjs', import.meta.url));
const data = (i) => new Uint8Array(createHash('sha256').update(`leaf-${i}`).digest());
const rate = (n) => `${Math.round(n).toLocaleString('en')}`;

function appenders(location, count, seconds, ratePerProcess) {
  return Promise.all(
    Array.from(
      { length: count },
      (_, i) =>
        new Promise((resolve, reject) => {
          const c = spawn(process.execPath, [APPENDER, location, `p${i}`, String(seconds), '1000', String(ratePerProcess)], {
            stdio: ['ignore', 'pipe', 'inherit'],
          });
          let out = '';
          c.stdout.on('data', (d) => (out += d));
          c.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`appender exited ${code}`))));
        }),
    ),
  );
}

function summarise(results) {
  const seconds = Math.max(...results.map((r) => r.seconds));
  const leaves = results.reduce((a, r) => a + r.leaves, 0);
  const heads = results.reduce((a, r) => a + r.heads, 0);
  const p99 = Math.max(...results.map((r) => r.p99 ?? Infinity));
  return { perSecond: leaves / seconds, headsPerSecond: heads / seconds, p99 };
}

async function sqliteAppends(dir, seconds) {
  // Baseline: raw inserts of 32-byte rows into one table, 50,000 rows per durable transaction.
  const raw = new (sqlite().DatabaseSync)(join(dir, 'raw.sqlite'));
  raw.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; CREATE TABLE t(x BLOB NOT NULL)');
  const ins = raw.prepare('INSERT INTO t(x) VALUES (?)');
  const tx = (rows) => {
    raw.exec('BEGIN');
    for (const r of rows) ins.run(r);
    raw.exec('COMMIT');
  };
  const rows = Array.from({ length: 50_000 }, (_, i) => data(i));
  let n = 0;
  const t = performance.now();
  while (performance.now() - t < 3000) {
    tx(rows);
    n += rows.length;
  }
  const rawRate = n / ((performance.now() - t) / 1000);
  raw.close();
  const offered = 55_000;
  const r = summarise(await appenders(join(dir, 'append.sqlite'), 1, seconds, offered));
  line('SQLite raw inserts of 32-byte rows, 50,000 per transaction (baseline)', `${rate(rawRate)} rows/s`);
  line(
    `SQLite ledger appends, 1 process, ${rate(offered)} leaves/s offered`,
    `${rate(r.perSecond)} leaves/s acknowledged in steady state`,
    '>= 50,000',
  );
  line('  signed heads per second; acknowledgement p99', `${r.headsPerSecond.toFixed(2)}; ${r.p99.toFixed(0)} ms`, '~1 head/s');
  line('  ratio ledger / raw inserts', (r.perSecond / rawRate).toFixed(2));
}

async function pgAppends(url, seconds) {
  // Baseline: raw inserts of 32-byte rows, 50,000 per transaction through unnest, one connection.
  const c = new pg.Client(url);
  await c.connect();
  await c.query('CREATE TABLE raw_t(x bytea NOT NULL)');
  const rows = Array.from({ length: 50_000 }, (_, i) => Buffer.from(data(i)));
  let n = 0;
  const t = performance.now();
  while (performance.now() - t < 3000) {
    await c.query('INSERT INTO raw_t(x) SELECT * FROM unnest($1::bytea[])', [rows]);
    n += rows.length;
  }
  const rawRate = n / ((performance.now() - t) / 1000);
  await c.query('DROP TABLE raw_t');
  await c.end();
  const store = await PgStore.open(url); // migrate once before the appenders race to
  await store.close();
  const offered = 3_500;
  const r = summarise(await appenders(url, 4, seconds, offered));
  line('PostgreSQL raw inserts of 32-byte rows, 50,000 per transaction (baseline)', `${rate(rawRate)} rows/s`);
  line(
    `PostgreSQL ledger appends, 4 processes, ${rate(offered)} leaves/s offered by each`,
    `${rate(r.perSecond)} leaves/s acknowledged in steady state`,
    '>= 10,000',
  );
  line(
    '  signed heads per second (all processes); acknowledgement p99',
    `${r.headsPerSecond.toFixed(2)}; ${r.p99.toFixed(0)} ms`,
    '~4 heads/s',
  );
  line('  ratio ledger / raw inserts', (r.perSecond / rawRate).toFixed(2));
}

/** Every leaf and completed subtree of a log of n leaves, in chunks, for bulk loading. */
function* treeChunks(n, chunk) {
  const stack = [];
  for (let from = 0; from < n; from += chunk) {
    const leaves = [];
    const nodes = [];
    for (let i = from; i < Math.min(n, from + chunk); i++) {
      const d = data(i);
      let h = leafHash(d);
      leaves.push([i, d, h]);
      let level = 0;
      while (stack.length && stack[stack.length - 1].level === level) {
        h = nodeHash(stack.pop().hash, h);
        level++;
        nodes.push([level, (i + 1) / 2 ** level - 1, h]);
      }
      stack.push({ level, hash: h });
    }
    yield { leaves, nodes };
  }
}

/** Bulk-build a SQLite store of n leaves: rows first, indexes after (what a restore would do). */
export function bulkSqlite(file, n) {
  const db = new (sqlite().DatabaseSync)(file);
  db.exec(`PRAGMA journal_mode = WAL; PRAGMA synchronous = OFF;
           CREATE TABLE leaves(idx INTEGER PRIMARY KEY, data BLOB NOT NULL, hash BLOB NOT NULL);
           CREATE TABLE nodes(level INTEGER NOT NULL, idx INTEGER NOT NULL, hash BLOB NOT NULL, PRIMARY KEY(level, idx)) WITHOUT ROWID;`);
  const insLeaf = db.prepare('INSERT INTO leaves(idx, data, hash) VALUES (?, ?, ?)');
  const insNode = db.prepare('INSERT INTO nodes(level, idx, hash) VALUES (?, ?, ?)');
  const load = (c) => {
    db.exec('BEGIN');
    for (const l of c.leaves) insLeaf.run(...l);
    for (const x of c.nodes) insNode.run(...x);
    db.exec('COMMIT');
  };
  for (const c of treeChunks(n, 100_000)) load(c);
  db.close();
}

/** Bulk-build the PostgreSQL store of n leaves through the store's own schema. */
export async function bulkPg(url, n) {
  const store = await PgStore.open(url);
  await store.close();
  const c = new pg.Client(url);
  await c.connect();
  for (const ch of treeChunks(n, 50_000)) {
    await c.query('INSERT INTO svc_leaves(idx, data, hash) SELECT * FROM unnest($1::bigint[], $2::bytea[], $3::bytea[])', [
      ch.leaves.map((l) => l[0]),
      ch.leaves.map((l) => Buffer.from(l[1])),
      ch.leaves.map((l) => Buffer.from(l[2])),
    ]);
    await c.query('INSERT INTO svc_nodes(level, idx, hash) SELECT * FROM unnest($1::smallint[], $2::bigint[], $3::bytea[])', [
      ch.nodes.map((x) => x[0]),
      ch.nodes.map((x) => x[1]),
      ch.nodes.map((x) => Buffer.from(x[2])),
    ]);
  }
  await c.query('UPDATE svc_tree SET size = $1', [n]);
  await c.query('VACUUM ANALYZE');
  await c.end();
}

/** `record`, when given, receives each proof's inputs (the floor reads the same rows again) and the percentiles. */
export async function proofBench(label, store, n, record = null) {
  const ledger = new Ledger({
    store,
    names: namesFor('svc'),
    log: 'svc-ledger',
    sthKey: K.sth,
    isPublished: () => true,
    highWater: new MemoryHighWater(),
    checkpoints: benchCheckpoints,
  });
  await ledger.init();
  const size = await store.size();
  let seed = 42;
  const rnd = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const inc = [];
  const con = [];
  for (let k = 0; k < 2200; k++) {
    // Leaves appended after the bulk load hold other data: look up the bulk-loaded ones.
    const i = Math.floor(rnd() * Math.min(size, n));
    let t = performance.now();
    const r = await ledger.inclusion({ data: data(i) });
    const ti = performance.now() - t;
    if (!r.found) throw new Error('lookup failed');
    const first = 1 + Math.floor(rnd() * (size - 1));
    record?.inputs.push({ data: data(i), leafHash: leafHash(data(i)), first });
    t = performance.now();
    await ledger.consistency(first, undefined, false);
    const tc = performance.now() - t;
    // The first 200 warm the caches, as a server that has run for a while has them.
    if (k >= 200) {
      inc.push(ti);
      con.push(tc);
    }
  }
  const pi = percentiles(inc);
  const pc = percentiles(con);
  if (record) Object.assign(record, { inclusion: pi, consistency: pc });
  const goal = label.startsWith('SQLite') ? 'p99 < 1 ms' : 'p99 < 5 ms';
  line(`${label} inclusion proof at ${n.toExponential(0)} leaves p50 / p99`, `${pi.p50.toFixed(3)} ms / ${pi.p99.toFixed(3)} ms`, goal);
  line(`${label} consistency proof at ${n.toExponential(0)} leaves p50 / p99`, `${pc.p50.toFixed(3)} ms / ${pc.p99.toFixed(3)} ms`, goal);
  return ledger;
}

async function sqliteProofs(dir, n) {
  const file = join(dir, `proofs-${n}.sqlite`);
  let t = performance.now();
  bulkSqlite(file, n);
  const store = new SqliteStore(file); // builds the lookup indexes
  line(`SQLite store of ${rate(n)} leaves built in`, `${((performance.now() - t) / 1000).toFixed(1)} s`);
  const ledger = await proofBench('SQLite', store, n);
  // History check for one new checkpoint: the full check has run once; one batch arrives.
  t = performance.now();
  await ledger.audit.fullCheck();
  const fullS = (performance.now() - t) / 1000;
  await ledger.append(Array.from({ length: 1000 }, (_, j) => data(n + 1 + j)));
  t = performance.now();
  const h = await ledger.history(false);
  const oneMs = performance.now() - t;
  if (h.consistent !== true) throw new Error('history not consistent');
  line(`full leaf recheck at ${n.toExponential(0)} leaves (background, once)`, `${fullS.toFixed(1)} s`);
  line(`history check for one new checkpoint (+1,000 leaves) at ${n.toExponential(0)}`, `${oneMs.toFixed(2)} ms`);
  await tileBench('SQLite', store, n);
  await exportBench(ledger, n, () => ledger.append(Array.from({ length: 1000 }, (_, j) => data(2 * n + j))));
  await ledger.close();
  // The same file as `svc serve` reads it: through its storage process (one IPC round trip a read).
  const viaProcess = await proofBench('SQLite via the storage process', await ProcessStore.open(file), n);
  await tileBench('SQLite via the storage process', viaProcess.store, n);
  await viaProcess.close();
}

async function pgProofs(url, n) {
  const t = performance.now();
  await bulkPg(url, n);
  line(`PostgreSQL store of ${rate(n)} leaves built in`, `${((performance.now() - t) / 1000).toFixed(1)} s`);
  const record = { inputs: [] };
  const ledger = await proofBench('PostgreSQL', await PgStore.open(url), n, record);
  const floor = await pgFloor(url, ledger.store, record.inputs);
  for (const kind of ['inclusion', 'consistency'])
    line(`  PostgreSQL ${kind} proof / its floor at p99`, (record[kind].p99 / floor[kind].p99).toFixed(2));
  await tileBench('PostgreSQL', ledger.store, n);
  await ledger.close();
}

export async function ledgerBench({
  quick = false,
  large = process.argv.includes('--large'),
  only = process.argv.find((a) => a.startsWith('--only='))?.slice(7),
} = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'svc-ledger-bench-'));
  const server = await startPostgres({ durable: true });
  const db = async (name) => {
    const c = new pg.Client(server.url);
    await c.connect();
    await c.query(`CREATE DATABASE ${name}`);
    await c.end();
    return server.url.replace(/\/postgres$/, `/${name}`);
  };
  try {
    const seconds = quick ? 4 : 10;
    if (only !== 'proofs') {
      await sqliteAppends(dir, seconds);
      await pgAppends(await db('appends'), seconds);
    }
    if (!quick && only !== 'appends') {
      await sqliteProofs(dir, 1_000_000);
      await pgProofs(await db('proofs'), 1_000_000);
    }
    if (large) await sqliteProofs(dir, 10_000_000);
    else console.log('(SQLite at 10^7 leaves: npm run bench -- --large; it builds a ~2 GB store)');
  } finally {
    server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await ledgerBench({ quick: process.argv.includes('--quick') });
}
