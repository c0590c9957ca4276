// Damaged storage, one test per damage: what each ledger endpoint and `svc issue` answer. Whatever
// happens to the ledger file, verification keeps serving; no process signs a head over a log that
// fails the start check, or one other than the tree its latest head vouches for; history loss is a rollback, never a fresh start; the same stored state
// reports the same findings whether the server saw it happen or started on it.
import { describe, expect, it } from 'vitest';
import { CLI, runSvc } from '../support/svc-cli.js';
import { chmodSync, closeSync, mkdirSync, openSync, readFileSync, rmSync, statSync, truncateSync, writeSync } from 'node:fs';
import { execSync, spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { namesFor } from '@svc/core';
import { sha256, toHex, utf8 } from '@svc/core/primitives';
import { issueProof } from '@svc/core/issue';
import { MemoryTree, treeRoot } from '@svc/core/merkle';
import { testKeys } from '@svc/core/testing';
import { ensureKeys, loadConfig, openLedger, serveLedger, type SqliteStore, startServer, type Running } from '../../src/internal.js';
import { call } from '../support/harness.js';
import { dataDir as makeDataDir } from '../support/ledger-dirs.js';
import { afterThisTest } from '../support/lifecycle.js';
import { Sqlite } from '../../src/ledger/sqlite/driver.js';
import type { SQLInputValue } from 'node:sqlite';

const dataDir = (leaves: number) => makeDataDir(leaves, 'svc-damage-');

const names = namesFor('svc');
const quiet = () => {};
const plain = issueProof({ answer: 'still verifying', model: 'm', ts: 1 }, { receipt: testKeys('damage').answer });

/** A raw connection to the ledger file, as another program (or an attacker) would open it. */
function raw<T>(dir: string, use: (db: Sqlite) => T): T {
  const db = new Sqlite(file(dir), { timeout: 10_000 });
  try {
    return use(db);
  } finally {
    db.close();
  }
}

const file = (dir: string) => join(dir, 'ledger.sqlite');

function tamper(dir: string, sql: string, ...args: unknown[]): void {
  raw(dir, (db) => {
    db.prepare(sql).run(...(args as SQLInputValue[]));
    db.pragma('wal_checkpoint(TRUNCATE)');
  });
}

async function serve(dir: string): Promise<Running> {
  const cfg = loadConfig({ SVC_DATA_DIR: dir, PORT: '0', SVC_LOG: '0', SVC_WORKERS: '1' });
  const r = await startServer(cfg);
  afterThisTest(() => r.close());
  return r;
}

/** Ledger views once the background full check has finished (or the ledger cannot be read). */
async function views(url: string) {
  let hist = await call(url, '/api/transparency/ledger/history');
  // Until the check is done, however long a loaded machine takes (the test's own timeout bounds it).
  for (
    const until = Date.now() + 90_000;
    Date.now() < until && hist.status === 200 && hist.body.consistent_unknown === 'leaf_check_incomplete';
  ) {
    await new Promise((r) => setTimeout(r, 20));
    hist = await call(url, '/api/transparency/ledger/history');
  }
  const head = await call(url, '/api/transparency/ledger');
  const cons = await call(url, '/api/transparency/ledger/consistency?first=1');
  const incl = await call(url, '/api/transparency/ledger/inclusion', { json: { answer: 'answer 0' } });
  const verify = await call(url, '/api/v1/verify', { json: plain });
  const checkpoint = await call(url, '/api/transparency/tlog/checkpoint');
  for (const r of [hist, head, cons, incl, verify, checkpoint]) expect(r.status === 503 || r.status < 500, `status ${r.status}`).toBe(true);
  // Rule 2 for checkpoints, in every state this suite makes: none is signed unless the JSON head
  // is, and a withheld one gives the head's reason.
  const withheld = head.status === 200 ? head.body.sth_withheld : 'unavailable';
  if (withheld) {
    expect(checkpoint.status).toBe(503);
    if (head.status === 200) expect(checkpoint.body.error).toContain(`(${withheld})`);
  } else expect(checkpoint.status === 200 || (checkpoint.status === 503 && head.body.signed_tree_head === null)).toBe(true);
  return { hist, head, cons, incl, verify, checkpoint };
}

function issue(dir: string, answer = 'one more answer') {
  return runSvc(['issue', '--answer', answer, '--data-dir', dir], { env: { SVC_LOG: '0' } });
}

function headCount(dir: string): number {
  return raw(dir, (db) => db.pluck('SELECT COUNT(*) FROM heads').get() as number);
}

async function expectIssueRefused(dir: string, reason: RegExp) {
  const before = headCount(dir);
  const r = await issue(dir);
  expect(r.code).toBe(3);
  expect(r.err).toMatch(reason);
  expect(r.out).toBe('');
  expect(headCount(dir)).toBe(before);
}

describe('a damaged log is never signed over (spec rule 2), by svc issue or the server', () => {
  // Damage below the latest head's frontier (issue 56): svc issue's start check does not read it,
  // so it signs, but only on the tree the latest head vouches for: its head is the root of the
  // leaves as they were, never a fork. The server's background check finds the damage and withholds.
  it.each([
    ['one stored leaf', 'UPDATE leaves SET data = zeroblob(32) WHERE idx = 4'],
    ['one stored leaf hash', 'UPDATE leaves SET hash = zeroblob(32) WHERE idx = 4'],
    ['one interior node', 'UPDATE nodes SET hash = zeroblob(32) WHERE level = 2 AND idx = 0'],
    [
      'an old head row rewritten',
      "UPDATE heads SET root_hash = 'ab' || substr(root_hash, 3), signed = replace(signed, root_hash, 'ab' || substr(root_hash, 3)) WHERE tree_size = 5",
    ],
  ])('%s changed: svc issue signs only the tree as it was; the server finds it and says fork', async (_what, sql) => {
    const dir = await dataDir(12);
    const before = raw(dir, (db) => db.pluck('SELECT hash FROM leaves ORDER BY idx').all() as Uint8Array[]);
    tamper(dir, sql);
    const r = await issue(dir);
    expect(r.code, r.err).toBe(0);
    const [added, head] = raw(dir, (db) => [
      db.pluck('SELECT hash FROM leaves WHERE idx = 12').get() as Uint8Array,
      db.prepare('SELECT tree_size, root_hash FROM heads ORDER BY id DESC LIMIT 1').get() as { tree_size: number; root_hash: string },
    ]);
    const tree = new MemoryTree();
    for (const h of [...before, added]) tree.appendLeafHash(new Uint8Array(h));
    expect(head).toEqual({ tree_size: 13, root_hash: toHex(treeRoot(tree, 13)) });
    // A server started on it (a restart) finds the damage in its background check, and keeps what
    // it found in the folder: svc issue, which reads no more than its start check, refuses now.
    const s = await serve(dir);
    const v = await views(s.url);
    expect(v.head.body).toMatchObject({ sth_withheld: 'fork', signed_tree_head: null });
    expect(v.hist.body.consistent).toBe(false);
    expect(v.verify.status).toBe(200);
    expect(JSON.parse(readFileSync(join(dir, 'ledger-findings.json'), 'utf8'))).toMatchObject({ withheld: 'fork' });
    await expectIssueRefused(dir, /fork/);
  });

  // Damage the start check reads: what signing needs.
  it.each([
    ['a subtree on the frontier', 'UPDATE nodes SET hash = zeroblob(32) WHERE level = 3 AND idx = 0'],
    [
      'the latest head row',
      "UPDATE heads SET root_hash = 'ab' || substr(root_hash, 3), signed = replace(signed, root_hash, 'ab' || substr(root_hash, 3)) WHERE id = (SELECT MAX(id) FROM heads)",
    ],
    [
      'a head row added at an old size',
      "INSERT INTO heads(tree_size, root_hash, timestamp, signed, receipt, key_hex, recorded) SELECT tree_size, 'ab' || substr(root_hash, 3), timestamp, replace(signed, root_hash, 'ab' || substr(root_hash, 3)), receipt, key_hex, recorded FROM heads WHERE tree_size = 5",
    ],
    [
      'a second root recorded at the latest size',
      "INSERT INTO heads(tree_size, root_hash, timestamp, signed, receipt, key_hex, recorded) SELECT tree_size, 'ab' || substr(root_hash, 3), timestamp, replace(signed, root_hash, 'ab' || substr(root_hash, 3)), receipt, key_hex, recorded FROM heads WHERE tree_size = 12",
    ],
  ])('%s changed: svc issue exits 3 without a new head, and the server says fork', async (_what, sql) => {
    const dir = await dataDir(12);
    tamper(dir, sql);
    await expectIssueRefused(dir, /fork/);
    const s = await serve(dir);
    const v = await views(s.url);
    expect(v.head.body).toMatchObject({ sth_withheld: 'fork', signed_tree_head: null });
    expect(v.hist.body.consistent).toBe(false);
  });
});

describe('history loss is a rollback, not a fresh start', () => {
  it.each([
    ['a zero-length ledger file', (dir: string) => truncateSync(file(dir), 0)],
    ['DROP TABLE heads', (dir: string) => tamper(dir, 'DROP TABLE heads')],
    [
      'the last leaves deleted with their heads',
      (dir: string) => {
        tamper(dir, 'DELETE FROM leaves WHERE idx >= 20');
        tamper(dir, 'DELETE FROM heads WHERE tree_size > 20');
      },
    ],
  ])('%s: every ledger view says rollback and svc issue refuses', async (_what, damage) => {
    const dir = await dataDir(27);
    for (const f of ['-wal', '-shm']) rmSync(file(dir) + f, { force: true });
    damage(dir);
    const s = await serve(dir);
    const v = await views(s.url);
    expect(v.head.status).toBe(200);
    expect(v.head.body).toMatchObject({ sth_withheld: 'rollback', signed_tree_head: null });
    expect(v.hist.body.consistent).toBe(false);
    expect(v.verify.status).toBe(200);
    await expectIssueRefused(dir, /rollback/);
  });
});

describe('rule 1: the same stored state reports the same, however the server got there', () => {
  it('a log cut from 27 to 20 leaves: the running server and a restarted one list the same sizes', async () => {
    const dir = await dataDir(27);
    const running = await serve(dir);
    await views(running.url);
    tamper(dir, 'DELETE FROM leaves WHERE idx >= 20');
    const seen = await views(running.url);
    const restarted = await serve(dir);
    const fresh = await views(restarted.url);
    const lists = (v: typeof seen) => ({
      inconsistent: v.hist.body.inconsistent_sizes,
      forked: v.hist.body.forked_sizes,
      withheld: v.head.body.sth_withheld,
    });
    expect(lists(seen)).toEqual({ inconsistent: [21, 22, 23, 24, 25, 26, 27], forked: [], withheld: 'rollback' });
    expect(lists(fresh)).toEqual(lists(seen));
  });

  it('a rewritten leaf names the head sizes it breaks', async () => {
    const dir = await dataDir(8);
    tamper(dir, 'UPDATE leaves SET data = zeroblob(32) WHERE idx = 5');
    const s = await serve(dir);
    const v = await views(s.url);
    expect(v.hist.body).toMatchObject({ consistent: false, inconsistent_sizes: [6, 7, 8], forked_sizes: [] });
  });

  it('a garbage head row makes the history unverifiable; no list ever holds anything but sizes', async () => {
    const dir = await dataDir(5);
    tamper(
      dir,
      "INSERT INTO heads(tree_size, root_hash, timestamp, signed, receipt, key_hex, recorded) VALUES ('garbage', 'x', 0, '', '', '', 0)",
    );
    const s = await serve(dir);
    const v = await views(s.url);
    expect(v.head.body).toMatchObject({ sth_withheld: 'unverifiable', signed_tree_head: null });
    expect(v.hist.status).toBe(503);
    expect(v.cons.body.sth_withheld).toBe('unverifiable');
    await expectIssueRefused(dir, /unverifiable/);
  });
});

/** Overwrite the heads table's root page with garbage, as a bad disk sector would. */
function corruptHeadsPage(dir: string) {
  const [page, root] = raw(dir, (db) => {
    db.pragma('wal_checkpoint(TRUNCATE)');
    return [db.pragma('page_size') as number, db.pluck("SELECT rootpage FROM sqlite_master WHERE name = 'heads'").get() as number];
  });
  const fd = openSync(file(dir), 'r+');
  writeSync(fd, new Uint8Array(page).fill(0xa5), 0, page, (root - 1) * page);
  closeSync(fd);
}

describe('unreadable storage: verification keeps serving, the ledger answers 503 or unverifiable', () => {
  it('the heads page corrupted while the server runs: no crash, no 500', async () => {
    const dir = await dataDir(30);
    const s = await serve(dir);
    await views(s.url);
    corruptHeadsPage(dir);
    tamper(dir, 'UPDATE leaves SET data = data WHERE idx = 0'); // any commit: other connections re-read
    const v = await views(s.url);
    expect([200, 503]).toContain(v.head.status);
    if (v.head.status === 200) expect(v.head.body.sth_withheld).toBe('unverifiable');
    expect(v.hist.status).toBe(503);
    expect(v.verify.status).toBe(200);
  });

  it('the server starts on a corrupted file, and svc issue refuses it', async () => {
    const dir = await dataDir(30);
    corruptHeadsPage(dir);
    const s = await serve(dir);
    const v = await views(s.url);
    expect(v.verify.status).toBe(200);
    expect(v.hist.status).toBe(503);
    expect((await issue(dir)).code).not.toBe(0);
  });

  it('a truncated file (half of it): the server starts, verifies, and answers 503 on the ledger', async () => {
    const dir = await dataDir(200);
    truncateSync(file(dir), Math.floor(statSync(file(dir)).size / 2));
    const s = await serve(dir);
    const v = await views(s.url);
    expect(v.verify.status).toBe(200);
    expect(v.head.status === 503 || v.head.body.sth_withheld !== undefined).toBe(true);
    const r = await issue(dir);
    expect(r.code).not.toBe(0);
    expect(r.err).not.toMatch(/at .*\.js:\d+/);
  });

  it('a ledger path that is not a file: the server starts and answers 503', async () => {
    const dir = await dataDir(0);
    rmSync(file(dir), { force: true });
    for (const f of ['-wal', '-shm']) rmSync(file(dir) + f, { force: true });
    // A folder where the file should be: it cannot be opened as a database.
    mkdirSync(file(dir));
    const s = await serve(dir);
    const v = await views(s.url);
    expect(v.head.status).toBe(503);
    expect(v.verify.status).toBe(200);
  });

  it('a ledger that could not be opened is tried again after 5 s, and serves once the file is fixed', async () => {
    const dir = await dataDir(2);
    rmSync(file(dir), { force: true });
    mkdirSync(file(dir));
    const cfg = loadConfig({ SVC_DATA_DIR: dir, SVC_LOG: '0' });
    let t = 1_000_000;
    const events: string[] = [];
    const l = await serveLedger(
      cfg,
      names,
      ensureKeys(cfg, quiet),
      (e) => events.push(e),
      () => t,
      // Time is this test's clock: no background retry (open-retry.test.ts holds that one).
      () => ({ cancel: () => undefined }),
    );
    afterThisTest(() => l.close());
    await expect(l.head()).rejects.toMatchObject({ code: 'unavailable' });
    rmSync(file(dir), { recursive: true });
    t += 4_999;
    await expect(l.head()).rejects.toMatchObject({ code: 'unavailable' });
    t += 1;
    // The high-water mark remembers 2 answers, so the new empty file is a rollback, served as a 200 view.
    expect(await l.head()).toMatchObject({ enabled: true, sth_withheld: 'rollback' });
    expect(events).toEqual(['ledger_unavailable', 'ledger_opened']);
  });

  it('disk full during an append rolls back whole: no leaf without its head, and appends resume after', async () => {
    const dir = await dataDir(3);
    const cfg = loadConfig({ SVC_DATA_DIR: dir, SVC_LOG: '0' });
    const ledger = await openLedger(cfg, names, ensureKeys(cfg, quiet), quiet, { background: false, batchMs: 0 });
    const store = ledger.store as SqliteStore;
    // The limit goes on the connection that writes: the store's writer thread.
    const pages = store.db.pragma('page_count') as number;
    await store.writerPragma(`max_page_count = ${pages}`);
    const big = Array.from({ length: 2000 }, (_, i) => sha256(utf8(`full ${i}`)));
    await expect(ledger.append(big)).rejects.toThrow();
    expect(await store.size()).toBe(3);
    expect(await store.headCount()).toBe(4);
    await store.writerPragma('max_page_count = 1073741823');
    await ledger.append([sha256(utf8('after'))]);
    await ledger.audit.fullCheck();
    expect(ledger.audit.withheld()).toBeNull();
    expect(await store.size()).toBe(4);
    await ledger.close();
  });
});

describe('files the server cannot write or read (as an unprivileged user)', () => {
  const asUser = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};
  // As root the server runs as nobody, which must be able to reach the checkout (a clone under a
  // private home folder is not reachable); file modes mean nothing to root itself.
  const runnable = spawnSync(process.execPath, [CLI, '--version'], { ...asUser, encoding: 'utf8' }).status === 0;
  if (!runnable)
    console.warn('storage-damage: this checkout is not readable by an unprivileged user; the read-only and unreadable cases are skipped');
  it.skipIf(!runnable).each([
    ['read-only', 0o444, 0o555],
    ['unreadable', 0o000, 0o755],
  ])(
    '%s ledger file: svc serve starts, verifies, and answers 503 on the ledger',
    async (_what, fileMode, dirMode) => {
      const dir = await dataDir(5);
      for (const f of ['-wal', '-shm']) rmSync(file(dir) + f, { force: true });
      // Root reads and writes whatever the modes say, so the server runs as nobody here.
      if ('uid' in asUser) execSync(`chown -R ${asUser.uid}:${asUser.gid} ${JSON.stringify(dir)}`);
      chmodSync(file(dir), fileMode);
      chmodSync(dir, dirMode);
      afterThisTest(() => chmodSync(dir, 0o755));
      const port = 21000 + Math.floor(Math.random() * 1000);
      const child = spawn(process.execPath, [CLI, 'serve'], {
        ...asUser,
        env: { ...process.env, SVC_DATA_DIR: dir, PORT: String(port), SVC_WORKERS: '1', SVC_LOG: '1' },
      });
      let out = '';
      child.stdout.on('data', (c) => (out += c));
      child.stderr.on('data', (c) => (out += c));
      const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
      afterThisTest(async () => {
        child.kill('SIGTERM');
        await exited;
      });
      for (let i = 0; i < 600 && !out.includes('"listening"'); i++) await new Promise((r) => setTimeout(r, 100));
      expect(out).toContain('"listening"');
      const base = `http://127.0.0.1:${port}`;
      expect((await call(base, '/api/v1/verify', { json: plain })).status).toBe(200);
      expect((await call(base, '/api/transparency/ledger')).status).toBe(503);
      expect(out).toContain('"ledger_unavailable"');
    },
    30_000,
  );
});
