// The ledger against each store directly (SQLite and a real PostgreSQL): self-audit under
// tampering, crash safety, batching, and the withholding rules (1: the same state gives the same
// reason on every read; 2: nothing is signed while withheld).
import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { namesFor, verifyBundle } from '@svc/core';
import { toHex } from '@svc/core/primitives';
import { MemoryTree, inclusionProof, leafHash, treeRoot } from '@svc/core/merkle';
import { signTreeHead } from '@svc/core/issue';
import fc from 'fast-check';
import { testKeys } from '@svc/core/testing';
import { Ledger, type LedgerStore } from '../../src/internal.js';
import { appendLoop, expectAllAcknowledged, type Ack } from '../support/appenders.js';
import { BACKENDS, testDb, type TestDb } from '../support/backends.js';
import { runs } from '@svc/tools/system';

const K = testKeys('ledger-tests');
const names = namesFor('svc');
const h = (s: string) => new Uint8Array(createHash('sha256').update(s).digest());

async function open(db: TestDb, o: { now?: () => number; batchMs?: number; auditMs?: number } = {}) {
  const store = await db.open();
  const ledger = new Ledger({ store, names, log: 'svc-ledger', sthKey: K.sth, isPublished: () => true, ...o });
  await ledger.init();
  return { store, ledger };
}

async function filled(name: (typeof BACKENDS)[number], batches = 6, per = 5) {
  const db = await testDb(name);
  const { store, ledger } = await open(db);
  for (let b = 0; b < batches; b++) await ledger.append(Array.from({ length: per }, (_, i) => h(`leaf-${b}-${i}`)));
  await ledger.audit.fullCheck();
  return { db, store, ledger };
}

/** Reopen as a fresh process would, run the full check, and read every view. */
async function reopen(db: TestDb) {
  const o = await open(db);
  await o.ledger.audit.fullCheck();
  return o;
}

async function reasons(l: Ledger) {
  const head = await l.head();
  const cons = await l.consistency(1, undefined, false);
  let hist: Record<string, unknown> | string;
  try {
    hist = await l.history(false);
  } catch (e) {
    hist = (e as { code: string }).code;
  }
  return { head, cons, hist };
}

async function allLeaves(store: LedgerStore) {
  return store.leaves(0, await store.size());
}

describe.each(BACKENDS)('%s: appends, heads and proofs', (backend) => {
  it('every batch is sealed by a signed head recorded as a checkpoint; the tree matches a reference', async () => {
    const { store, ledger } = await filled(backend, 4, 3);
    expect(await store.size()).toBe(12);
    expect(await store.headCount()).toBe(5); // the empty head, then one per batch
    const ref = new MemoryTree();
    for (let b = 0; b < 4; b++) for (let i = 0; i < 3; i++) ref.appendData(h(`leaf-${b}-${i}`));
    for (const size of [1, 5, 12]) {
      const ids = [{ level: 0, index: size - 1 }];
      expect(toHex((await store.nodes(ids))[0]!)).toBe(toHex(ref.subtree(0, size - 1)));
    }
    const head = await ledger.head();
    expect(head.tree_size).toBe(12);
    expect(head.root_hash).toBe(toHex(treeRoot(ref, 12)));
    expect(head.sth_withheld).toBeUndefined();
    const v = await verifyBundle(head.signed_tree_head, { trustedKeys: K.trustedKeys });
    expect(v.verdict.overallOk).toBe(true);
    expect(v.signerRecognized).toBe(true);
    expect(await ledger.history(false)).toMatchObject({
      consistent: true,
      append_only_verified: true,
      forked_sizes: [],
      inconsistent_sizes: [],
      count: 5,
    });
    await ledger.close();
  });

  it('paths read together are, for every index and tree size, the inclusion proof of the reference tree; outside the tree is out_of_range', async () => {
    const { ledger } = await filled(backend, 5, 7);
    const ref = new MemoryTree();
    for (let b = 0; b < 5; b++) for (let i = 0; i < 7; i++) ref.appendData(h(`leaf-${b}-${i}`));
    await fc.assert(
      fc.asyncProperty(
        fc
          .integer({ min: 1, max: 35 })
          .chain((size) => fc.tuple(fc.constant(size), fc.array(fc.nat({ max: size - 1 }), { maxLength: 40 }))),
        async ([size, indexes]) => {
          const paths = await ledger.paths(indexes, size);
          expect(paths.map((p) => p.map(toHex))).toEqual(indexes.map((i) => inclusionProof(ref, i, size).map(toHex)));
        },
      ),
      { numRuns: 40 },
    );
    for (const [indexes, size] of [
      [[0], 36],
      [[0], 0],
      [[35], 35],
      [[3, -1], 10],
      [[1.5], 10],
    ] as const)
      await expect(ledger.paths(indexes, size)).rejects.toMatchObject({ code: 'out_of_range' });
    await ledger.close();
  });

  it('appends made together are integrated as one batch under one head, each with its own indices', async () => {
    const db = await testDb(backend);
    const { store, ledger } = await open(db, { batchMs: 50 });
    const before = await store.headCount();
    const acks = await Promise.all(Array.from({ length: 20 }, (_, i) => ledger.append([h(`x${i}`), h(`y${i}`)])));
    expect(acks.map((a) => a.firstIndex)).toEqual(Array.from({ length: 20 }, (_, i) => 2 * i));
    expect(new Set(acks.map((a) => a.head.id)).size).toBe(1);
    expect(acks[0]!.head.tree_size).toBe(40);
    expect(await store.headCount()).toBe(before + 1);
    // Acknowledged means durable and signed: a second store sees the leaves and the head.
    const other = await db.open();
    expect(await other.size()).toBe(40);
    expect((await other.latestHeads(1))[0]!.tree_size).toBe(40);
    await other.close();
    const r = await ledger.inclusion({ data: h('y7') });
    expect(r).toMatchObject({ found: true, index: 15, tree_size: 40 });
    // The paths query: the same path as the proof, for any size that holds the entry; none beyond.
    expect(await ledger.find(h('y7'))).toBe(15);
    expect(await ledger.find(h('absent'))).toBeUndefined();
    // Many lookups in one read: each is what find answers, in order, repeats and absences kept.
    expect(await ledger.findAll([h('absent'), h('y7'), h('y7'), h('x0')])).toEqual([undefined, 15, 15, 0]);
    expect(await ledger.findAll([])).toEqual([]);
    expect((await ledger.paths([15], 40))[0]!.map(toHex)).toEqual(r.proof);
    const at20 = await ledger.inclusion({ data: h('y7'), treeSize: 20 });
    expect((await ledger.paths([15, 15], 20)).map((p) => p.map(toHex))).toEqual([at20.proof, at20.proof]);
    await expect(ledger.paths([15], 15)).rejects.toMatchObject({ code: 'out_of_range' });
    for (const bad of [0, 41, 1.5, Number.NaN]) await expect(ledger.paths([0], bad)).rejects.toMatchObject({ code: 'out_of_range' });
    await ledger.close();
  });

  it('a batch of 1,234 leaves (several multi-row inserts and a remainder) stores the reference tree', async () => {
    const db = await testDb(backend);
    const { store, ledger } = await open(db);
    const leaves = Array.from({ length: 1234 }, (_, i) => h(`big-${i}`));
    await ledger.append(leaves.slice(0, 7));
    await ledger.append(leaves.slice(7));
    const ref = new MemoryTree();
    for (const d of leaves) ref.appendData(d);
    const rows = await store.leaves(0, 1234);
    expect(rows.map((r) => toHex(r.data))).toEqual(leaves.map(toHex));
    expect(rows.map((r) => toHex(r.hash))).toEqual(leaves.map((_, i) => toHex(ref.subtree(0, i))));
    expect(toHex((await store.nodes([{ level: 10, index: 0 }]))[0]!)).toBe(toHex(ref.subtree(10, 0)));
    expect((await ledger.head()).root_hash).toBe(toHex(treeRoot(ref, 1234)));
    await ledger.audit.fullCheck();
    expect(ledger.audit.withheld()).toBeNull();
    expect(await ledger.inclusion({ data: leaves[1000]! })).toMatchObject({ found: true, index: 1000 });
    await ledger.close();
  });

  it('a batched read names the subtree that is missing instead of returning a short list', async () => {
    const { db, store, ledger } = await filled(backend, 2, 4);
    const ids = [
      { level: 0, index: 3 },
      { level: 2, index: 0 },
      { level: 3, index: 0 },
    ];
    const before = await store.nodes(ids);
    expect(before.map((x) => x.length)).toEqual([32, 32, 32]);
    await db.sql('DELETE FROM {nodes} WHERE level = 2 AND idx = 0');
    await expect(store.nodes(ids)).rejects.toThrow('missing subtree (2, 0)');
    await db.sql('DELETE FROM {leaves} WHERE idx = 3');
    await expect(store.nodes([{ level: 0, index: 3 }])).rejects.toThrow('missing subtree (0, 3)');
    await ledger.close();
  });

  it('a repeated answer is a new leaf; lookups return the lowest index', async () => {
    const { ledger } = await filled(backend, 1, 2);
    await ledger.append([h('leaf-0-1')]);
    const r = await ledger.inclusion({ data: h('leaf-0-1') });
    expect(r.index).toBe(1);
    expect((await ledger.inclusion({ leaf: leafHash(h('leaf-0-1')) })).index).toBe(1);
    // Not in the log, or not in the tree asked for: found false, by data and by leaf hash alike.
    expect(await ledger.inclusion({ data: h('absent') })).toEqual({ found: false });
    expect(await ledger.inclusion({ leaf: leafHash(h('absent')) })).toEqual({ found: false });
    expect(await ledger.inclusion({ data: h('leaf-0-1'), treeSize: 1 })).toEqual({ found: false });
    expect(await ledger.inclusion({ leaf: leafHash(h('leaf-0-1')), treeSize: 1 })).toEqual({ found: false });
    await ledger.close();
  });

  it('appends maintain one leaf index; a store with the old data index loses it on open and still finds by data', async () => {
    const { db, ledger } = await filled(backend, 2, 3);
    await ledger.close();
    const indexes = async () =>
      (backend === 'sqlite'
        ? await db.sql("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'leaves' AND sql IS NOT NULL")
        : await db.sql("SELECT indexname AS name FROM pg_indexes WHERE tablename = 'svc_leaves' AND indexname <> 'svc_leaves_pkey'")
      ).map((r) => r.name);
    expect(await indexes()).toEqual([backend === 'sqlite' ? 'leaves_hash8' : 'svc_leaves_hash']);
    // A store written by the previous release: the data index is there (and on PostgreSQL, schema 1).
    if (backend === 'sqlite') await db.sql('CREATE INDEX leaves_data8 ON leaves(substr(data, 1, 8))');
    else {
      await db.sql('CREATE INDEX svc_leaves_data ON svc_leaves(data, idx)');
      await db.sql('UPDATE svc_schema SET version = 1');
    }
    expect(await indexes()).toHaveLength(2);
    const again = await reopen(db);
    expect(await indexes()).toHaveLength(1);
    expect((await again.ledger.inclusion({ data: h('leaf-1-2') })).index).toBe(5);
    expect(await again.store.findByData(h('not in the log'))).toBeUndefined();
    await again.ledger.close();
  });

  it('heads are never dated before their predecessor', async () => {
    let t = 2_000_000;
    const db = await testDb(backend);
    const { store, ledger } = await open(db, { now: () => t });
    await ledger.append([h('a')]);
    t = 1_000_000;
    await ledger.append([h('b')]);
    const [newer, older] = await store.latestHeads(2);
    expect(newer!.timestamp).toBeGreaterThanOrEqual(older!.timestamp);
    await ledger.close();
  });

  it('the full check reports leaf_check_incomplete until it has run', async () => {
    const { db, ledger: first } = await filled(backend, 2, 2);
    await first.close();
    const { ledger } = await open(db);
    expect(await ledger.history(false)).toMatchObject({
      consistent: null,
      consistent_unknown: 'leaf_check_incomplete',
      append_only_verified: null,
    });
    await ledger.audit.fullCheck();
    const after = await ledger.history(false);
    expect(after).toMatchObject({ consistent: true, append_only_verified: true });
    expect(after.consistent_unknown).toBeUndefined();
    await ledger.close();
  });

  it('leaves another process appends are verified incrementally; one rewritten after it wrote is caught', async () => {
    const { db, ledger, store } = await filled(backend, 2, 2);
    await ledger.append([h('x'), h('y')]);
    await ledger.head();
    expect(ledger.audit.withheld()).toBeNull();
    // Another process appends; its newest leaf is then rewritten before this one reads it back.
    const other = await open(db);
    await other.ledger.audit.fullCheck();
    await other.ledger.append([h('z')]);
    await other.ledger.close();
    await db.sql('UPDATE {leaves} SET data = ? WHERE idx = ?', h('evil'), (await store.size()) - 1);
    await expect(ledger.append([h('after')])).rejects.toMatchObject({ code: 'withheld' });
    expect(ledger.audit.withheld()).toBe('fork');
    await ledger.close();
  });
});

describe.each(BACKENDS)('%s: tampering gives the exact sth_withheld reason and history fields', (backend) => {
  it('deleting the newest leaves is a rollback', async () => {
    const { db, ledger: l0 } = await filled(backend);
    await l0.close();
    await db.sql('DELETE FROM {leaves} WHERE idx >= ?', 27);
    const { ledger } = await reopen(db);
    const r = await reasons(ledger);
    expect(r.head).toMatchObject({ sth_withheld: 'rollback', signed_tree_head: null, tree_size: 27 });
    expect(r.cons.sth_withheld).toBe('rollback');
    expect(r.hist).toMatchObject({ consistent: false, append_only_verified: false, inconsistent_sizes: [30], forked_sizes: [] });
    await ledger.close();
  });

  it('rewriting an old leaf is a fork', async () => {
    const { db, ledger: l0 } = await filled(backend);
    await l0.close();
    await db.sql('UPDATE {leaves} SET data = ? WHERE idx = 3', h('rewritten'));
    const { ledger } = await reopen(db);
    const r = await reasons(ledger);
    expect(r.head).toMatchObject({ sth_withheld: 'fork', signed_tree_head: null });
    expect(r.cons.sth_withheld).toBe('fork');
    expect(r.hist).toMatchObject({ consistent: false, append_only_verified: false });
    await ledger.close();
  });

  it('rewriting an old leaf with its hash and every subtree recomputed is a fork at every later size', async () => {
    const { db, store, ledger: l0 } = await filled(backend);
    const tree = new MemoryTree();
    const rows = await allLeaves(store);
    for (const [i, row] of rows.entries()) tree.appendData(i === 3 ? h('rewritten') : row.data);
    await l0.close();
    await db.sql('UPDATE {leaves} SET data = ?, hash = ? WHERE idx = 3', h('rewritten'), tree.leaf(3)!);
    for (const [level, idx] of [
      [1, 1],
      [2, 0],
      [3, 0],
      [4, 0],
    ] as const)
      await db.sql('UPDATE {nodes} SET hash = ? WHERE level = ? AND idx = ?', tree.subtree(level, idx), level, idx);
    const { ledger } = await reopen(db);
    const r = await reasons(ledger);
    expect(r.head.sth_withheld).toBe('fork');
    expect((r.hist as any).inconsistent_sizes).toEqual([5, 10, 15, 20, 25, 30]);
    expect((r.hist as any).forked_sizes).toEqual([]);
    await ledger.close();
  });

  it('a second root at a recorded size is a fork (split view)', async () => {
    const { db, ledger: l0 } = await filled(backend);
    await l0.close();
    // A genuinely signed second head at size 10 (a key holder showing another history).
    const other = signTreeHead({ log: 'svc-ledger', tree_size: 10, root_hash: '00'.repeat(32), timestamp: 1 }, K.sth);
    await db.sql(
      `INSERT INTO {heads}(tree_size, root_hash, timestamp, signed, receipt, key_hex, recorded)
       SELECT tree_size, ?, 1, ?, ?, key_hex, recorded FROM {heads} WHERE tree_size = 10`,
      '00'.repeat(32),
      other.signed,
      JSON.stringify(other.receipt),
    );
    const { ledger } = await reopen(db);
    const r = await reasons(ledger);
    expect(r.head).toMatchObject({ sth_withheld: 'fork', signed_tree_head: null });
    expect(r.hist).toMatchObject({ consistent: false, forked_sizes: [10] });
    await ledger.close();
  });

  it('a leaf edited in place under a running ledger (triggers off): its next full recheck reports what a fresh ledger reports', async () => {
    const db = await testDb(backend);
    let t = 0;
    const { ledger } = await open(db, { now: () => t, auditMs: 60_000 });
    for (let b = 0; b < 4; b++) await ledger.append(Array.from({ length: 5 }, (_, i) => h(`live-${b}-${i}`)));
    await ledger.audit.fullCheck();
    expect((await reasons(ledger)).head.sth_withheld).toBeUndefined();
    // On PostgreSQL with replication role 'replica', so no trigger records the change.
    const edit = (zero: string) => `UPDATE {leaves} SET data = ${zero} WHERE idx = 7`;
    await db.sql(
      backend === 'postgres' ? `SET session_replication_role = replica; ${edit("decode(repeat('00', 32), 'hex')")}` : edit('zeroblob(32)'),
    );
    const { ledger: fresh } = await reopen(db);
    const want = await reasons(fresh);
    expect(want.head.sth_withheld).toBe('fork');
    // Before the interval the running ledger has not looked again; once due, a read starts the recheck.
    t += 60_000;
    await ledger.head();
    for (let i = 0; i < 200 && (await ledger.head()).sth_withheld === undefined; i++) await new Promise((r) => setTimeout(r, 10));
    const got = await reasons(ledger);
    expect(got.head.sth_withheld).toBe(want.head.sth_withheld);
    expect(got.hist).toEqual(want.hist);
    await fresh.close();
    await ledger.close();
  });

  it('a head row whose columns differ from its signed text is unverifiable, and nothing is signed after it', async () => {
    const { db, ledger: l0 } = await filled(backend);
    await l0.close();
    // A copy of the latest head dated in the year 3000 by its column only (its signed text is real).
    await db.sql(
      `INSERT INTO {heads}(tree_size, root_hash, timestamp, signed, receipt, key_hex, recorded)
       SELECT tree_size, root_hash, 32503680000000, signed, receipt, key_hex, recorded FROM {heads} ORDER BY id DESC LIMIT 1`,
    );
    const { ledger } = await reopen(db);
    const r = await reasons(ledger);
    expect(r.head).toMatchObject({ sth_withheld: 'unverifiable', signed_tree_head: null });
    await expect(ledger.append([new Uint8Array(32).fill(7)])).rejects.toThrow(/unverifiable/);
    const heads = await ledger.store.latestHeads(5);
    // No head was ever signed with the forged date.
    expect(heads.filter((h) => JSON.parse(h.signed).timestamp >= 32503680000000)).toEqual([]);
    await ledger.close();
  });

  it('an unreadable history is unverifiable, and history answers 503', async () => {
    const { db, ledger: l0 } = await filled(backend);
    await l0.close();
    await db.sql('DROP TABLE {heads}');
    await db.sql('CREATE TABLE {heads}(id INTEGER PRIMARY KEY)');
    const store = await db.open();
    const ledger = new Ledger({ store, names, log: 'svc-ledger', sthKey: K.sth, isPublished: () => true });
    const r = await reasons(ledger);
    expect(r.head).toMatchObject({ sth_withheld: 'unverifiable', signed_tree_head: null });
    expect(r.cons.sth_withheld).toBe('unverifiable');
    expect(r.hist).toBe('unavailable');
    await ledger.close();
  });

  it('rule 2: no head is signed while withheld', async () => {
    const { db, ledger: l0 } = await filled(backend);
    await l0.close();
    await db.sql('DELETE FROM {leaves} WHERE idx >= ?', 28);
    const { ledger, store } = await reopen(db);
    const heads = await store.headCount();
    await expect(ledger.append([h('more')])).rejects.toMatchObject({ code: 'withheld' });
    expect(await store.headCount()).toBe(heads);
    expect(await store.size()).toBe(28);
    await ledger.close();
  });
});

describe.runIf(runs('postgres'))('PostgreSQL connections', () => {
  it('an error event on a connection already released as broken (a terminated backend) is not an unhandled error', async () => {
    const db = await testDb('postgres');
    const store = (await db.open()) as unknown as { pool: { connect(): Promise<any> }; close(): Promise<void> };
    const c = await store.pool.connect();
    c.release(true);
    // pg emits the server's 57P01 ErrorResponse as an 'error' event; with no listener it would throw.
    expect(() =>
      c.emit('error', Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' })),
    ).not.toThrow();
    await store.close();
  });
});

describe.runIf(runs('postgres'))('PostgreSQL schema versions', () => {
  it('a database migrated by a newer release is refused, not written to; the log is left as it was', async () => {
    const { db, ledger } = await filled('postgres', 1, 2);
    await ledger.close();
    await db.sql('UPDATE svc_schema SET version = 99');
    await expect(db.open()).rejects.toThrow(/schema \(version 99\) is newer than this server knows/);
    expect(await db.sql('SELECT count(*)::int AS n FROM {leaves}')).toEqual([{ n: 2 }]);
    expect(await db.sql('SELECT version FROM svc_schema')).toEqual([{ version: 99 }]);
  });
});

describe('the SQLite writer thread', () => {
  it('a writer thread that dies mid-batch rejects that batch whole; the next batch gets a new thread', async () => {
    const db = await testDb('sqlite');
    const { store, ledger } = await open(db);
    await ledger.append([h('before')]);
    const sqlite = store as unknown as { sequence: LedgerStore['sequence']; thread: { worker: { terminate(): Promise<number> } } };
    const heads = await store.headCount();
    const dying = sqlite.sequence([h('lost-1'), h('lost-2')], (size, root) => {
      void sqlite.thread.worker.terminate();
      return { tree_size: size, root_hash: toHex(root), timestamp: 1, signed: '', receipt: '', key_hex: '', recorded: 1 };
    });
    await expect(dying).rejects.toThrow(/writer thread/);
    expect(await store.size()).toBe(1);
    expect(await store.headCount()).toBe(heads);
    await ledger.append([h('after')]);
    expect(await store.size()).toBe(2);
    expect(toHex((await store.leaves(1, 2))[0]!.data)).toBe(toHex(h('after')));
    await ledger.audit.fullCheck();
    expect(ledger.audit.withheld()).toBeNull();
    await ledger.close();
  });

  it('a reply from the writer thread that cannot be read rejects the call; the thread is replaced', async () => {
    const db = await testDb('sqlite');
    const { store, ledger } = await open(db);
    await ledger.append([h('before')]);
    const thread = (store as unknown as { thread: { worker: { postMessage(m: unknown): void; emit(e: string, x: unknown): void } } })
      .thread;
    const w = thread.worker;
    // The message goes nowhere and the reply "arrives" unreadable, as a failed deserialisation would.
    w.postMessage = () => w.emit('messageerror', new Error('could not deserialize'));
    await expect(ledger.append([h('lost')])).rejects.toMatchObject({ code: 'unavailable' });
    expect(await store.size()).toBe(1);
    await ledger.append([h('after')]);
    expect(await store.size()).toBe(2);
    await ledger.close();
  });

  it('a seal that throws rolls the batch back on the writer thread', async () => {
    const db = await testDb('sqlite');
    const { store, ledger } = await open(db);
    await expect(
      store.sequence([h('x')], () => {
        throw new Error('no signature');
      }),
    ).rejects.toThrow('no signature');
    expect(await store.size()).toBe(0);
    await ledger.append([h('y')]);
    expect(await store.size()).toBe(1);
    await ledger.close();
  });
});

// Each kill costs an appender's start (modules, keys, the log's full check): 6 in every `npm test`,
// SVC_CRASH_RUNS for more; `npm run fuzz -- --only sigkill` is the campaign.
const CRASH_RUNS = Math.max(3, Number(process.env.SVC_CRASH_RUNS ?? 6));

describe('crash safety (SQLite)', () => {
  it(`SIGKILL at random points (${CRASH_RUNS} appenders) never loses an acknowledged leaf nor splits a head`, async () => {
    const db = await testDb('sqlite');
    const acked: Ack[] = [];
    let seed = 12345;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let run = 0; run < CRASH_RUNS; run++) {
      const { child, onLine } = appendLoop(db.location, `r${run}`, acked);
      // Kill at a random point once it is appending: after 1-3 acknowledgements (counted, not timed:
      // a loaded machine once gave each appender a single one in the old 0-300 ms), then 0-300 ms
      // on, mid-transaction, mid-write or between appends.
      const want = 1 + Math.floor(rand() * 3);
      let lines = 0;
      const enough = new Promise<void>((r) => onLine((l) => l.startsWith('ack ') && ++lines >= want && r()));
      await Promise.race([enough, new Promise((r) => setTimeout(r, 30_000))]);
      await new Promise((r) => setTimeout(r, Math.floor(rand() * 300)));
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
    }
    expect(acked.length).toBeGreaterThan(CRASH_RUNS);
    await expectAllAcknowledged(db, acked);
  }, 120_000);
});
