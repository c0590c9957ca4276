// Three server instances on one PostgreSQL log, each with its own data folder holding the same
// keys: every ledger endpoint answers the same on each, and a tampered log is withheld with the
// same reason on each. Also: a database that is down or goes away is a 503, never a crash.
import { cpSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { namesFor } from '@svc/core';
import { sha256, textSha256, toHex, utf8 } from '@svc/core/primitives';
import { signTreeHead } from '@svc/core/issue';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testKeys } from '@svc/core/testing';
import {
  ensureKeys,
  Ledger,
  loadConfig,
  openLedger,
  PG_TIMEOUTS,
  PgStore,
  serveLedger,
  startServer,
  type Running,
} from '../../src/internal.js';
import { startPostgres } from '@svc/tools/postgres';
import { runs } from '@svc/tools/system';
import { testDb, type TestDb } from '../support/backends.js';
import { call } from '../support/harness.js';

const names = namesFor('svc');
const quiet = () => {};
let db: TestDb;
const servers: Running[] = [];
const dirs: string[] = [];

async function appendAnswers(dir: string, answers: string[]) {
  const cfg = loadConfig({ SVC_DATA_DIR: dir, SVC_LOG: '0', SVC_DATABASE_URL: db.location });
  const ledger = await openLedger(cfg, names, ensureKeys(cfg, quiet), quiet, { background: false, batchMs: 0 });
  try {
    for (const a of answers) await ledger.append([sha256(utf8(a))]);
  } finally {
    await ledger.close();
  }
}

/** The same GET or POST on every instance, once each one's full check has finished. */
async function onEach(path: string, json?: unknown) {
  return Promise.all(servers.map((s) => call(s.url, path, json === undefined ? {} : { json })));
}

async function settled() {
  for (let i = 0; i < 200; i++) {
    const h = await onEach('/api/transparency/ledger/history');
    if (h.every((r) => r.status === 200 && r.body.consistent_unknown === undefined)) return;
    await new Promise((r) => setTimeout(r, 25));
  }
}

beforeAll(async () => {
  if (!runs('postgres')) return;
  db = await testDb('postgres');
  const first = mkdtempSync(join(tmpdir(), 'svc-inst-'));
  ensureKeys(loadConfig({ SVC_DATA_DIR: first }), quiet);
  dirs.push(first);
  for (let i = 1; i < 3; i++) {
    const d = mkdtempSync(join(tmpdir(), 'svc-inst-'));
    cpSync(join(first, 'keys'), join(d, 'keys'), { recursive: true });
    dirs.push(d);
  }
  for (const d of dirs) {
    const cfg = loadConfig({ SVC_DATA_DIR: d, PORT: '0', SVC_LOG: '0', SVC_WORKERS: '1', SVC_DATABASE_URL: db.location });
    servers.push(await startServer(cfg));
  }
  await appendAnswers(dirs[0]!, ['one', 'two', 'three']);
  await appendAnswers(dirs[1]!, ['four', 'five']);
  await appendAnswers(dirs[2]!, ['six']);
}, 120_000);
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

describe.runIf(runs('postgres'))('three instances, one PostgreSQL log', () => {
  it('head, inclusion, consistency (plain and signed) and history are the same on every instance', async () => {
    await settled();
    const paths = [
      '/api/transparency/ledger',
      '/api/transparency/ledger/consistency?first=1',
      '/api/transparency/ledger/consistency?first=3&second=6&signed=1',
      '/api/transparency/ledger/history?verifiable=1',
    ];
    for (const p of paths) {
      const rs = await onEach(p);
      for (const r of rs) expect(r.status, p).toBe(200);
      expect(rs[1]!.body, p).toEqual(rs[0]!.body);
      expect(rs[2]!.body, p).toEqual(rs[0]!.body);
    }
    const head = (await onEach('/api/transparency/ledger'))[0]!.body;
    expect(head.tree_size).toBe(6);
    expect(head.sth_withheld).toBeUndefined();
    expect(head.signed_tree_head).not.toBeNull();
    for (const answer of ['one', 'four', 'six']) {
      const rs = await onEach('/api/transparency/ledger/inclusion', { answer });
      expect(rs[0]!.body.found).toBe(true);
      expect(rs[1]!.body).toEqual(rs[0]!.body);
      expect(rs[2]!.body).toEqual(rs[0]!.body);
    }
    const hist = (await onEach('/api/transparency/ledger/history'))[0]!.body;
    // The empty head, then one per append.
    expect(hist).toMatchObject({ consistent: true, append_only_verified: true, count: 7 });
  });

  it('a second root recorded at a signed size: every instance withholds with fork, and no instance signs', async () => {
    // Genuinely signed by the log's key: a key holder showing another history at size 3.
    const root = toHex(sha256(utf8('another root')));
    const sthKey = ensureKeys(loadConfig({ SVC_DATA_DIR: dirs[0]!, SVC_LOG: '0' }), quiet).get('sth');
    const other = signTreeHead({ log: 'svc-ledger', tree_size: 3, root_hash: root, timestamp: 1 }, sthKey);
    await db.sql(
      `INSERT INTO {heads}(tree_size, root_hash, timestamp, signed, receipt, key_hex, recorded)
       SELECT tree_size, ?, 1, ?, ?, key_hex, recorded FROM {heads} WHERE tree_size = 3`,
      root,
      other.signed,
      JSON.stringify(other.receipt),
    );
    const heads = await onEach('/api/transparency/ledger');
    for (const r of heads) expect(r.body).toMatchObject({ sth_withheld: 'fork', signed_tree_head: null, tree_size: 6 });
    const hist = await onEach('/api/transparency/ledger/history');
    for (const r of hist) expect(r.body).toMatchObject({ consistent: false, forked_sizes: [3] });
    await expect(appendAnswers(dirs[1]!, ['seven'])).rejects.toMatchObject({ code: 'withheld' });
    expect((await onEach('/api/transparency/ledger'))[2]!.body.tree_size).toBe(6);
  });
});

describe.runIf(runs('postgres'))('a database that is down', () => {
  it('at start: verification serves, the ledger is 503 and retried; mid-run: 503, then served again', async () => {
    const pg = await startPostgres();
    try {
      const dir = mkdtempSync(join(tmpdir(), 'svc-inst-'));
      const cfg = loadConfig({ SVC_DATA_DIR: dir, SVC_LOG: '0', SVC_DATABASE_URL: pg.url });
      const ring = ensureKeys(cfg, quiet);
      pg.pause();
      let t = 1_000_000;
      const events: string[] = [];
      const l = await serveLedger(
        cfg,
        names,
        ring,
        (e) => events.push(e),
        () => t,
        // Time is this test's clock: no background retry (open-retry.test.ts holds that one).
        () => ({ cancel: () => undefined }),
      );
      await expect(l.head()).rejects.toMatchObject({ code: 'unavailable' });
      pg.resume();
      t += 5_000;
      expect(await l.head()).toMatchObject({ enabled: true, tree_size: 0 });
      expect(events.slice(0, 2)).toEqual(['ledger_unavailable', 'ledger_opened']);
      pg.pause();
      for (const read of [() => l.head(), () => l.history(false), () => l.inclusion({ data: textSha256('x')! })])
        await expect(read()).rejects.toMatchObject({ code: 'unavailable' });
      pg.resume();
      expect(await l.head()).toMatchObject({ enabled: true, tree_size: 0 });
      await l.close();
    } finally {
      pg.stop();
    }
  }, 60_000);

  it('stops answering (frozen, as a hung host or a partition looks): calls fail with 503 within the timeout, nothing half-done is acknowledged, then it serves again', async () => {
    const pg = await startPostgres();
    const TIMEOUT = 800;
    try {
      const defaults = await PgStore.open(pg.url);
      expect(defaults.pool.options).toMatchObject({ query_timeout: PG_TIMEOUTS.callMs, connectionTimeoutMillis: PG_TIMEOUTS.callMs });
      expect((await defaults.pool.query('SHOW idle_in_transaction_session_timeout')).rows[0]).toEqual({
        idle_in_transaction_session_timeout: `${PG_TIMEOUTS.idleInTransactionMs / 1000}s`,
      });
      await defaults.close();
      const store = await PgStore.open(pg.url, { timeoutMs: TIMEOUT });
      const ledger = new Ledger({ store, names, log: 'svc-ledger', sthKey: testKeys('frozen-db').sth, isPublished: () => true });
      await ledger.init();
      await ledger.append([sha256(utf8('before'))]);
      pg.freeze();
      const calls = [
        () => ledger.head(),
        () => ledger.history(false),
        () => ledger.inclusion({ data: textSha256('before')! }),
        () => ledger.append([sha256(utf8('while frozen'))]),
      ];
      for (const call of calls) {
        const t = performance.now();
        await expect(call()).rejects.toMatchObject({ code: 'unavailable' });
        // One call may wait for its query, then for the brief rollback of the connection it lost.
        expect(performance.now() - t).toBeLessThan(TIMEOUT + 2_000 + 3_000);
      }
      pg.thaw();
      expect(await ledger.inclusion({ data: textSha256('before')! })).toMatchObject({ found: true, index: 0 });
      expect(await ledger.inclusion({ data: textSha256('while frozen')! })).toMatchObject({ found: false });
      expect((await ledger.append([sha256(utf8('after'))])).firstIndex).toBe(1);
      const head = await ledger.head();
      expect(head).toMatchObject({ tree_size: 2, signed_tree_head: { signed: expect.stringContaining('"tree_size":2') } });
      expect(head).not.toHaveProperty('sth_withheld');
      await ledger.close();
    } finally {
      try {
        pg.thaw();
      } finally {
        pg.stop();
      }
    }
  }, 60_000);
});
