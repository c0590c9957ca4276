// The ledger against its store directly: self-audit under tampering, crash safety, and the
// withholding rules (1: the same state gives the same reason on every read; 2: nothing is signed
// while withheld).
import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MemoryTree, leafHash, namesFor, toHex, treeRoot, verifyBundle } from '@svc/core';
import { testKeys } from '@svc/core/testing';
import { Ledger, SqliteStore } from '../dist/internal.js';

const K = testKeys('ledger-tests');
const names = namesFor('svc');
const h = (s: string) => new Uint8Array(createHash('sha256').update(s).digest());

function open(file: string, now?: () => number) {
  const store = new SqliteStore(file);
  const ledger = new Ledger({ store, names, log: 'svc-ledger', sthKey: K.sth, isPublished: () => true, ...(now ? { now } : {}) });
  ledger.init();
  return { store, ledger };
}

function filled(batches = 6, per = 5) {
  const file = join(mkdtempSync(join(tmpdir(), 'svc-ledger-')), 'l.sqlite');
  const { store, ledger } = open(file);
  for (let b = 0; b < batches; b++) ledger.append(Array.from({ length: per }, (_, i) => h(`leaf-${b}-${i}`)));
  ledger.audit.fullCheckSync();
  return { file, store, ledger };
}

/** Reopen as a fresh process would, run the full check, and read every view. */
function reopen(file: string) {
  const o = open(file);
  o.ledger.audit.fullCheckSync();
  return o;
}

function reasons(l: Ledger) {
  const head = l.head();
  const cons = l.consistency(1, undefined, false);
  let hist: Record<string, unknown> | string;
  try {
    hist = l.history(false);
  } catch (e) {
    hist = (e as { code: string }).code;
  }
  return { head, cons, hist };
}

describe('appends, heads and proofs', () => {
  it('every append is sealed by a signed head recorded as a checkpoint; the tree matches a reference', async () => {
    const { store, ledger } = filled(4, 3);
    expect(store.size()).toBe(12);
    expect(store.headCount()).toBe(5); // the empty head, then one per batch
    const ref = new MemoryTree();
    for (let b = 0; b < 4; b++) for (let i = 0; i < 3; i++) ref.appendData(h(`leaf-${b}-${i}`));
    for (const size of [1, 5, 12]) expect(toHex(treeRoot(store, size))).toBe(toHex(treeRoot(ref, size)));
    const head = ledger.head();
    expect(head.tree_size).toBe(12);
    expect(head.sth_withheld).toBeUndefined();
    const v = await verifyBundle(head.signed_tree_head, { trustedKeys: K.trustedKeys });
    expect(v.verdict.overallOk).toBe(true);
    expect(v.signerRecognized).toBe(true);
    expect(ledger.history(false)).toMatchObject({
      consistent: true,
      append_only_verified: true,
      forked_sizes: [],
      inconsistent_sizes: [],
      count: 5,
    });
  });

  it('a repeated answer is a new leaf; lookups return the lowest index', () => {
    const { ledger } = filled(1, 2);
    ledger.append([h('leaf-0-1')]);
    const r = ledger.inclusion({ answer_sha256: toHex(h('leaf-0-1')) });
    expect(r.index).toBe(1);
    expect(ledger.inclusion({ leaf: toHex(leafHash(h('leaf-0-1'))) }).index).toBe(1);
  });

  it('heads are never dated before their predecessor', () => {
    let t = 2_000_000;
    const file = join(mkdtempSync(join(tmpdir(), 'svc-ledger-')), 'l.sqlite');
    const { store, ledger } = open(file, () => t);
    ledger.append([h('a')]);
    t = 1_000_000;
    ledger.append([h('b')]);
    const [newer, older] = store.latestHeads(2);
    expect(newer!.timestamp).toBeGreaterThanOrEqual(older!.timestamp);
  });

  it('the full check reports leaf_check_incomplete until it has run', () => {
    const { file } = filled(2, 2);
    const { ledger } = open(file);
    expect(ledger.history(false)).toMatchObject({
      consistent: null,
      consistent_unknown: 'leaf_check_incomplete',
      append_only_verified: null,
    });
    ledger.audit.fullCheckSync();
    expect(ledger.history(false)).toMatchObject({ consistent: true, append_only_verified: true });
    expect(ledger.history(false).consistent_unknown).toBeUndefined();
  });

  it('new leaves after the full check are verified incrementally', () => {
    const { ledger, store } = filled(2, 2);
    ledger.append([h('x'), h('y')]);
    ledger.head();
    expect(ledger.audit.withheld()).toBeNull();
    // A leaf rewritten after the check but before the incremental pass reaches it is caught.
    ledger.append([h('z')]);
    // Another process (its own connection) rewrites the newest leaf.
    const other = new SqliteStore(store.db.name);
    other.db.prepare('UPDATE leaves SET data = ? WHERE idx = ?').run(Buffer.from(h('evil')), store.size() - 1);
    other.close();
    expect(() => ledger.append([h('after')])).toThrowError(expect.objectContaining({ code: 'unavailable' }));
    expect(ledger.audit.withheld()).toBe('fork');
  });
});

describe('tampering: the exact sth_withheld reason and history fields', () => {
  it('deleting the newest leaves is a rollback', () => {
    const { file, store } = filled();
    store.db.prepare('DELETE FROM leaves WHERE idx >= ?').run(27);
    store.close();
    const { ledger } = reopen(file);
    const r = reasons(ledger);
    expect(r.head).toMatchObject({ sth_withheld: 'rollback', signed_tree_head: null, tree_size: 27 });
    expect(r.cons.sth_withheld).toBe('rollback');
    expect(r.hist).toMatchObject({ consistent: false, append_only_verified: false, inconsistent_sizes: [30], forked_sizes: [] });
  });

  it('rewriting an old leaf is a fork', () => {
    const { file, store } = filled();
    store.db.prepare('UPDATE leaves SET data = ? WHERE idx = 3').run(Buffer.from(h('rewritten')));
    store.close();
    const { ledger } = reopen(file);
    const r = reasons(ledger);
    expect(r.head).toMatchObject({ sth_withheld: 'fork', signed_tree_head: null });
    expect(r.cons.sth_withheld).toBe('fork');
    expect(r.hist).toMatchObject({ consistent: false, append_only_verified: false });
  });

  it('rewriting an old leaf with its hash and every subtree recomputed is a fork at every later size', () => {
    const { file, store } = filled();
    const tree = new MemoryTree();
    for (let i = 0; i < store.size(); i++) tree.appendData(i === 3 ? h('rewritten') : store.leafData(i)!);
    store.db.prepare('UPDATE leaves SET data = ?, hash = ? WHERE idx = 3').run(Buffer.from(h('rewritten')), Buffer.from(tree.leaf(3)!));
    const upd = store.db.prepare('UPDATE nodes SET hash = ? WHERE level = ? AND idx = ?');
    for (const [level, idx] of [
      [1, 1],
      [2, 0],
      [3, 0],
      [4, 0],
    ])
      upd.run(Buffer.from(tree.subtree(level!, idx!)), level, idx);
    store.close();
    const { ledger } = reopen(file);
    const r = reasons(ledger);
    expect(r.head.sth_withheld).toBe('fork');
    expect((r.hist as any).inconsistent_sizes).toEqual([5, 10, 15, 20, 25, 30]);
    expect((r.hist as any).forked_sizes).toEqual([]);
  });

  it('a second root at a recorded size is a fork (split view)', () => {
    const { file, store } = filled();
    const row = store.headAtSize(10)!;
    store.insertHead({ ...row, root_hash: '00'.repeat(32) });
    store.close();
    const { ledger } = reopen(file);
    const r = reasons(ledger);
    expect(r.head).toMatchObject({ sth_withheld: 'fork', signed_tree_head: null });
    expect(r.hist).toMatchObject({ consistent: false, forked_sizes: [10] });
  });

  it('an unreadable history is unverifiable, and history answers 503', () => {
    const { file, store } = filled();
    store.db.exec('DROP TABLE heads');
    store.close();
    const store2 = new SqliteStore(file);
    store2.db.exec('DROP TABLE heads; CREATE TABLE heads(id INTEGER PRIMARY KEY)');
    const ledger = new Ledger({ store: store2, names, log: 'svc-ledger', sthKey: K.sth, isPublished: () => true });
    const r = reasons(ledger);
    expect(r.head).toMatchObject({ sth_withheld: 'unverifiable', signed_tree_head: null });
    expect(r.cons.sth_withheld).toBe('unverifiable');
    expect(r.hist).toBe('unavailable');
  });

  it('rule 2: no head is signed while withheld', () => {
    const { file, store } = filled();
    store.db.prepare('DELETE FROM leaves WHERE idx >= ?').run(28);
    store.close();
    const { ledger, store: s2 } = reopen(file);
    const heads = s2.headCount();
    expect(() => ledger.append([h('more')])).toThrowError(expect.objectContaining({ code: 'unavailable', status: 503 }));
    expect(s2.headCount()).toBe(heads);
    expect(s2.size()).toBe(28);
  });
});

describe('crash safety', () => {
  it('SIGKILL at random points never loses an acknowledged leaf nor splits a head', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'svc-crash-')), 'l.sqlite');
    const script = fileURLToPath(new URL('./fixtures/append-loop.mjs', import.meta.url));
    const acked: { tag: string; k: number; first: number; count: number }[] = [];
    let seed = 12345;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let run = 0; run < 10; run++) {
      const child = spawn(process.execPath, [script, file, `r${run}`], { stdio: ['ignore', 'pipe', 'inherit'] });
      let buf = '';
      let started: () => void;
      const first = new Promise<void>((r) => (started = r));
      child.stdout.on('data', (c) => {
        started();
        buf += c;
        let i: number;
        while ((i = buf.indexOf('\n')) >= 0) {
          const [, tag, k, first, count] = buf.slice(0, i).split(' ');
          buf = buf.slice(i + 1);
          acked.push({ tag: tag!, k: Number(k), first: Number(first), count: Number(count) });
        }
      });
      // Kill at a random point once it is appending: mid-transaction, mid-write or between appends.
      await Promise.race([first, new Promise((r) => setTimeout(r, 10_000))]);
      await new Promise((r) => setTimeout(r, Math.floor(rand() * 300)));
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
    }
    expect(acked.length).toBeGreaterThan(10);
    const { store, ledger } = reopen(file);
    for (const a of acked) {
      for (let j = 0; j < a.count; j++) {
        const data = new Uint8Array(createHash('sha256').update(`${a.tag}-${a.k}-${j}`).digest());
        expect(toHex(store.leafData(a.first + j)!)).toBe(toHex(data));
      }
    }
    expect(ledger.audit.withheld()).toBeNull();
    expect(ledger.history(false)).toMatchObject({ consistent: true, forked_sizes: [], inconsistent_sizes: [] });
    const dup = store.db.prepare('SELECT tree_size FROM heads GROUP BY tree_size HAVING COUNT(DISTINCT root_hash) > 1').all();
    expect(dup).toEqual([]);
    // Every recorded head is the root of the live leaves at its size.
    const rows = store.heads(0, 100000);
    const tree = new MemoryTree();
    for (let i = 0; i < store.size(); i++) tree.appendData(store.leafData(i)!);
    for (const r of rows) expect(r.root_hash).toBe(toHex(treeRoot(tree, r.tree_size)));
  }, 120_000);
});
