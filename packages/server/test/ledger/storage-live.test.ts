// Damage done to a SQLite ledger while the server runs on it. Shrinking a file under SQLite's
// memory mappings raises SIGBUS in whatever process maps it: only the storage process may die, and
// verification never stops. Damage that is not an append (an edit in place, a deleted row, files
// replaced) is found by the running server as a fresh start finds it (spec States rule 1).
import { describe, expect, it } from 'vitest';
import { copyFileSync, mkdirSync, rmSync, statSync, truncateSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { namesFor } from '@svc/core';
import { sha256, utf8 } from '@svc/core/primitives';
import { issueProof } from '@svc/core/issue';
import { testKeys } from '@svc/core/testing';
import { ensureKeys, loadConfig, openLedger, ProcessStore, SqliteStore, startServer, type Running } from '../../src/internal.js';
import { call } from '../support/harness.js';
import { dataDir as makeDataDir } from '../support/ledger-dirs.js';
import { afterThisTest } from '../support/lifecycle.js';
import { Sqlite } from '../../src/ledger/sqlite/driver.js';
import type { SQLInputValue } from 'node:sqlite';

const dataDir = (leaves: number) => makeDataDir(leaves, 'svc-live-');

const names = namesFor('svc');
const quiet = () => {};
const plain = issueProof({ answer: 'still verifying', model: 'm', ts: 1 }, { receipt: testKeys('live').answer });

const file = (dir: string) => join(dir, 'ledger.sqlite');

async function serve(dir: string): Promise<Running> {
  // Full rechecks every 50 ms: what a running server finds after its interval, found at once.
  const cfg = loadConfig({
    SVC_DATA_DIR: dir,
    PORT: '0',
    SVC_LOG: '0',
    SVC_WORKERS: '1',
    SVC_LEDGER_AUDIT_SECONDS: '0.05',
    SVC_RATE_READ: '0',
    SVC_RATE_VERIFY: '0',
  });
  const r = await startServer(cfg);
  afterThisTest(() => r.close());
  return r;
}

/** What a reader of the ledger endpoints learns of the log's state. */
async function state(url: string) {
  // The history first: a full check that ends between the two reads then leaves an incomplete
  // history (read again by settled) rather than a head from before it beside a history from after.
  const hist = await call(url, '/api/transparency/ledger/history');
  const head = await call(url, '/api/transparency/ledger');
  const verify = await call(url, '/api/v1/verify', { json: plain });
  expect(verify.status).toBe(200);
  for (const r of [head, hist]) expect([200, 503]).toContain(r.status);
  return {
    head: head.status,
    withheld: head.body?.sth_withheld ?? null,
    size: head.body?.tree_size ?? null,
    hist: hist.status,
    consistent: hist.body?.consistent,
    unknown: hist.body?.consistent_unknown ?? null,
    inconsistent: hist.body?.inconsistent_sizes ?? null,
    forked: hist.body?.forked_sizes ?? null,
  };
}

/** The state once no full check is pending (what a reader sees once the server has looked). */
async function settled(url: string) {
  let s = await state(url);
  // Until the check is done, however long a loaded machine takes (the test's own timeout bounds it).
  // A history that could not be read beside a head served as sound is a moment of the check, not
  // a state: a history the check cannot read withholds the head once it has looked.
  const pending = (x: typeof s) => x.unknown === 'leaf_check_incomplete' || (x.hist === 503 && x.head === 200 && x.withheld === null);
  for (const until = Date.now() + 90_000; Date.now() < until && pending(s); ) {
    await new Promise((r) => setTimeout(r, 20));
    s = await state(url);
  }
  return s;
}

function raw(dir: string, sql: string, ...args: unknown[]): void {
  const db = new Sqlite(file(dir), { timeout: 10_000 });
  try {
    db.prepare(sql).run(...(args as SQLInputValue[]));
  } finally {
    db.close();
  }
}

describe('the running server reports what a fresh start reports (rule 1)', () => {
  it.each([
    ['a leaf changed in place', (dir: string) => raw(dir, 'UPDATE leaves SET data = zeroblob(32) WHERE idx = 3')],
    ["a head's root changed in place", (dir: string) => raw(dir, 'UPDATE heads SET root_hash = ? WHERE tree_size = 5', '00'.repeat(32))],
    ['one leaf row deleted', (dir: string) => raw(dir, 'DELETE FROM leaves WHERE idx = 4')],
    [
      'the high-water file replaced by a larger fake head',
      (dir: string) => writeFileSync(join(dir, 'keys', 'high-water.json'), JSON.stringify({ tree_size: 99, root_hash: 'ab'.repeat(32) })),
    ],
    ['the high-water file replaced by garbage', (dir: string) => writeFileSync(join(dir, 'keys', 'high-water.json'), 'not json')],
    [
      // Folders made before the rename keep it as sth-witness.json: read while high-water.json is absent.
      'the high-water file under its former name claiming a larger head',
      (dir: string) => {
        rmSync(join(dir, 'keys', 'high-water.json'), { force: true });
        writeFileSync(join(dir, 'keys', 'sth-witness.json'), JSON.stringify({ tree_size: 99, root_hash: 'ab'.repeat(32) }));
      },
    ],
    [
      'the ledger file unlinked',
      (dir: string) => {
        for (const f of ['', '-wal', '-shm']) rmSync(file(dir) + f, { force: true });
      },
    ],
  ])('%s', async (_what, damage) => {
    const dir = await dataDir(8);
    const running = await serve(dir);
    expect(await settled(running.url)).toMatchObject({ head: 200, withheld: null, consistent: true });
    damage(dir);
    const fresh = await settled((await serve(dir)).url);
    expect(fresh.withheld).not.toBeNull();
    let seen = await settled(running.url);
    for (const until = Date.now() + 60_000; Date.now() < until && JSON.stringify(seen) !== JSON.stringify(fresh); ) {
      await new Promise((r) => setTimeout(r, 50));
      seen = await settled(running.url);
    }
    expect(seen).toEqual(fresh);
  });

  it('the WAL deleted after another process appended', async () => {
    const dir = await dataDir(4);
    const running = await serve(dir);
    await settled(running.url);
    // Another process appends and goes away; then the WAL is deleted under the running server.
    const cfg = loadConfig({ SVC_DATA_DIR: dir, SVC_LOG: '0' });
    const other = await openLedger(cfg, names, ensureKeys(cfg, quiet), quiet, { background: false, batchMs: 0 });
    await other.append([sha256(utf8('in the WAL'))]);
    await other.close();
    unlinkSync(`${file(dir)}-wal`);
    const fresh = await settled((await serve(dir)).url);
    let seen = await settled(running.url);
    for (const until = Date.now() + 60_000; Date.now() < until && JSON.stringify(seen) !== JSON.stringify(fresh); ) {
      await new Promise((r) => setTimeout(r, 50));
      seen = await settled(running.url);
    }
    expect(seen).toEqual(fresh);
  });

  it.each([
    ['not JSON', 'not json'],
    ['a negative size', JSON.stringify({ tree_size: -1, root_hash: 'ab'.repeat(32) })],
    ['an uppercase root', JSON.stringify({ tree_size: 2, root_hash: 'AB'.repeat(32) })],
    ['empty', ''],
  ])('a high-water file that is %s: a 200 withheld as unverifiable, not a 503 forever', async (_what, text) => {
    const dir = await dataDir(2);
    writeFileSync(join(dir, 'keys', 'high-water.json'), text);
    const s = await settled((await serve(dir)).url);
    expect(s).toMatchObject({ head: 200, withheld: 'unverifiable', size: 2 });
  });
});

describe('files shrunk under the server: no crash, verification serves, the ledger recovers', () => {
  it.each([
    ['the WAL index truncated to 0', (dir: string) => truncateSync(`${file(dir)}-shm`, 0)],
    ['the ledger file truncated to half', (dir: string) => truncateSync(file(dir), Math.floor(statSync(file(dir)).size / 2))],
    ['an older copy restored over the ledger file with cp', (dir: string) => copyFileSync(join(dir, 'old.sqlite'), file(dir))],
  ])('%s while ledger reads are served', async (_what, damage) => {
    const dir = await dataDir(60);
    const db = new Sqlite(file(dir));
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.close();
    copyFileSync(file(dir), join(dir, 'old.sqlite'));
    const running = await serve(dir);
    await settled(running.url);
    const statuses = new Set<number>();
    const reads = (async () => {
      for (let i = 0; i < 60; i++) {
        const [head, incl] = await Promise.all([
          call(running.url, '/api/transparency/ledger'),
          call(running.url, '/api/transparency/ledger/inclusion', { json: { answer: `answer ${i % 60}` } }),
        ]);
        statuses.add(head.status).add(incl.status);
      }
    })();
    await new Promise((r) => setTimeout(r, 30));
    damage(dir);
    await reads;
    for (const s of statuses) expect([200, 503]).toContain(s);
    // Still alive and verifying; the ledger answers 200 or 503, never hangs or crashes.
    expect((await call(running.url, '/api/v1/verify', { json: plain })).status).toBe(200);
    expect([200, 503]).toContain((await call(running.url, '/api/transparency/ledger')).status);
  });
});

describe('the storage process', () => {
  it('dies of SIGBUS: its calls fail, the next after the pause starts another on the same file', async () => {
    const dir = await dataDir(3);
    let t = 0;
    const exits: string[] = [];
    const store = await ProcessStore.open(file(dir), { now: () => t, onExit: (why) => exits.push(why) });
    afterThisTest(() => store.close());
    expect(await store.size()).toBe(3);
    const pid = (await store.pid())!;
    const pending = store.size();
    process.kill(pid, 'SIGBUS');
    await expect(pending.then(() => store.size())).rejects.toThrow(/storage process/);
    expect(exits).toEqual(['SIGBUS']);
    await expect(store.size()).rejects.toThrow(/restarting/);
    t += 1_000;
    expect(await store.size()).toBe(3);
    expect(await store.pid()).not.toBe(pid);
  });

  it('reports missing rows as damage, a refused open as a rejection', async () => {
    const dir = await dataDir(3);
    raw(dir, 'DELETE FROM leaves WHERE idx = 1');
    const store = await ProcessStore.open(file(dir));
    afterThisTest(() => store.close());
    await expect(store.leaves(0, 3)).rejects.toMatchObject({ damage: true });
    mkdirSync(join(dir, 'x'));
    await expect(ProcessStore.open(join(dir, 'x'))).rejects.toThrow();
    // The in-process store says the same of the same rows.
    const s = new SqliteStore(file(dir));
    afterThisTest(() => s.close());
    await expect(s.leaves(0, 3)).rejects.toMatchObject({ damage: true });
  });
});

describe('the storage process against messages it cannot use', () => {
  it('unknown requests, unknown reads, malformed arguments and non-objects: error replies, and it keeps serving', async () => {
    const { fork } = await import('node:child_process');
    const { fileURLToPath } = await import('node:url');
    const dir = await dataDir(3);
    const entry = fileURLToPath(new URL('../../dist/sqlite-process.js', import.meta.url));
    const c = fork(entry, [file(dir)], { serialization: 'json', execArgv: [], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    afterThisTest(() => {
      c.kill('SIGKILL');
    });
    const replies = new Map<number, any>();
    c.on('message', (m: any) => {
      if (typeof m?.id === 'number') replies.set(m.id, m);
    });
    await new Promise<void>((r) => c.on('message', (m: any) => m?.op === 'ready' && r()));
    const hostile = [
      { id: 1, op: 'frobnicate' },
      { id: 2, op: 'read', name: 'constructor', args: [], snap: false },
      { id: 3, op: 'read', name: 'nodes', args: [{ not: 'an array' }], snap: false },
      { id: 4, op: 'read', name: 'leaves', args: ['x', { $b: 'zz' }], snap: false },
      { id: 5, op: 'read', name: 'size', args: [], snap: true },
      { id: 6, op: 'sequence', data: 'not a list' },
      { id: 7, op: 'sealed', seal: 99 },
      // Whole proofs in one round trip (#35): malformed subjects and sizes are refused.
      { id: 13, op: 'prove-inclusion', subject: { data: 'x' }, withRoot: true },
      { id: 14, op: 'prove-inclusion', subject: null, withRoot: true },
      { id: 15, op: 'prove-inclusion', subject: { leaf: { $b: 'ab' } }, treeSize: 'all', withRoot: true },
      { id: 16, op: 'prove-consistency', first: 'a' },
    ];
    c.send('just a string');
    c.send(null as never);
    for (const m of hostile) c.send(m);
    c.send({ id: 8, op: 'read', name: 'size', args: [], snap: false });
    for (let i = 0; i < 200 && !replies.has(8); i++) await new Promise((r) => setTimeout(r, 10));
    for (const id of [1, 2, 3, 5, 6, 13, 14, 15, 16]) expect(replies.get(id), `request ${id}`).toMatchObject({ ok: false });
    expect(replies.get(8)).toMatchObject({ ok: true, value: 3 });
    // A head signed beforehand that is not one (#32): never committed as it is; the store asks for
    // the seal instead, and a refused seal rolls the batch back.
    c.on('message', (m: any) => {
      if (m?.op === 'seal') c.send({ op: 'sealed', seal: m.seal, error: 'refused by the test' });
    });
    const leaf = { $b: 'ab'.repeat(32) };
    for (const [id, presealed] of [
      [9, 'garbage'],
      [10, { size: 3, previousId: null, head: null }],
      [11, { size: 3, previousId: 1, head: { root_hash: 7 } }],
    ] as const) {
      c.send({ id, op: 'sequence', data: [leaf], presealed });
      for (let i = 0; i < 300 && !replies.has(id); i++) await new Promise((r) => setTimeout(r, 10));
      expect(replies.get(id), `sequence ${id}`).toMatchObject({ ok: false });
    }
    c.send({ id: 12, op: 'read', name: 'size', args: [], snap: false });
    for (let i = 0; i < 200 && !replies.has(12); i++) await new Promise((r) => setTimeout(r, 10));
    expect(replies.get(12)).toMatchObject({ ok: true, value: 3 });
    expect(c.exitCode).toBeNull();
  });
});
