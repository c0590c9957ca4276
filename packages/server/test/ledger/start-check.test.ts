// What a process reads before it signs its first head (issue 56): the latest head, its frontier, the
// high-water mark and the tail appended since, in reads that do not grow with the log's past; the
// whole log is left to the background check. Counted in rows read, on SQLite and PostgreSQL.
import { createHash } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { namesFor } from '@svc/core';
import { testKeys } from '@svc/core/testing';
import { describe, expect, it } from 'vitest';
import { FileFindingsRecord, Ledger, type LedgerReads, type LedgerStore, MemoryHighWater, parseFindings } from '../../src/internal.js';
import { Pacer, restMs, tailMs, TAIL } from '../../src/ledger/pace.js';
import fc from 'fast-check';

import { BACKENDS, testDb, type TestDb } from '../support/backends.js';

const K = testKeys('start-check');
const names = namesFor('svc');
const h = (s: string) => new Uint8Array(createHash('sha256').update(s).digest());

interface Counts {
  leaves: number;
  nodes: number;
  heads: number;
}

/** The store, with every row its reads return counted (inside snapshots too). */
function counting(store: LedgerStore): { store: LedgerStore; counts: Counts } {
  const counts: Counts = { leaves: 0, nodes: 0, heads: 0 };
  const wrapReads = <T extends LedgerReads>(r: T): T =>
    new Proxy(r, {
      get(target, key, receiver) {
        const v = Reflect.get(target, key, receiver);
        if (typeof v !== 'function') return v;
        return async (...args: unknown[]) => {
          const out = await v.apply(
            target,
            key === 'snapshot' ? [(inner: LedgerReads) => (args[0] as (x: LedgerReads) => unknown)(wrapReads(inner))] : args,
          );
          if (key === 'leaves') counts.leaves += (out as unknown[]).length;
          if (key === 'nodes') counts.nodes += (out as unknown[]).length;
          if (key === 'heads' || key === 'latestHeads') counts.heads += (out as unknown[]).length;
          if (key === 'headAtSize' && out) counts.heads += 1;
          return out;
        };
      },
    });
  return { store: wrapReads(store), counts };
}

const ledgerOn = (store: LedgerStore, highWater = new MemoryHighWater(), findings?: FileFindingsRecord) =>
  new Ledger({ store, names, log: 'svc-ledger', sthKey: K.sth, isPublished: () => true, highWater, ...(findings ? { findings } : {}) });

/** A log of `batches` heads of `per` leaves each, its high-water mark, and its database. */
async function grown(backend: (typeof BACKENDS)[number], batches: number, per: number) {
  const db: TestDb = await testDb(backend);
  const highWater = new MemoryHighWater();
  const ledger = ledgerOn(await db.open(), highWater);
  await ledger.init();
  for (let b = 0; b < batches; b++) await ledger.append(Array.from({ length: per }, (_, i) => h(`${b}.${i}`)));
  await ledger.close();
  return { db, highWater };
}

describe.each(BACKENDS)('%s: the start check', (backend) => {
  it('a log of 4,096 leaves under 33 heads: the first head is signed after reading no leaf, a few heads and a dozen subtrees', async () => {
    const { db, highWater } = await grown(backend, 32, 128);
    const { store, counts } = counting(await db.open());
    const ledger = ledgerOn(store, highWater);
    await ledger.init();
    const appended = await ledger.append([h('after the restart')]);
    expect(appended.firstIndex).toBe(4096);
    expect(appended.head.tree_size).toBe(4097);
    // The frontier of 4,096 is one subtree, of 4,097 two; what was read is bounded by the log's
    // height, never its length.
    expect(counts.leaves).toBe(0);
    expect(counts.heads).toBeLessThanOrEqual(6);
    expect(counts.nodes).toBeLessThanOrEqual(3 * 13);
    // Until the background check has run, the history says so; after it, it passes.
    const before = await ledger.history(false);
    expect(before).toMatchObject({ consistent: null, consistent_unknown: 'leaf_check_incomplete' });
    const read = { ...counts };
    await ledger.audit.fullCheck();
    // The full check, by contrast, reads every leaf and every head: the counter sees what it reads.
    expect(counts.leaves - read.leaves).toBeGreaterThanOrEqual(4097);
    expect(counts.heads - read.heads).toBeGreaterThanOrEqual(34);
    expect(await ledger.history(false)).toMatchObject({ consistent: true });
    await ledger.close();
  }, 120_000);

  it('the rows read at start do not grow with the log: 64 leaves and 4,096 read the same', async () => {
    const read: Counts[] = [];
    for (const [batches, per] of [
      [4, 16],
      [32, 128],
    ] as const) {
      const { db, highWater } = await grown(backend, batches, per);
      const { store, counts } = counting(await db.open());
      const ledger = ledgerOn(store, highWater);
      await ledger.init();
      await ledger.append([h('one more')]);
      read.push({ ...counts });
      await ledger.close();
    }
    expect(read[1]).toEqual(read[0]);
  }, 120_000);

  it('leaves another writer appended since are read back before a head is signed over them, and a damaged one is refused', async () => {
    const { db, highWater } = await grown(backend, 8, 4);
    const { store, counts } = counting(await db.open());
    const a = ledgerOn(store, highWater);
    await a.init();
    await a.head();
    // Another instance on the same database appends 10 leaves; one of them is then damaged.
    const b = ledgerOn(await db.open(), highWater);
    await b.init();
    await b.append(Array.from({ length: 10 }, (_, i) => h(`other ${i}`)));
    await b.close();
    const before = counts.leaves;
    await db.sql('UPDATE {leaves} SET data = ? WHERE idx = 37', new Uint8Array(32));
    await expect(a.append([h('over the damage')])).rejects.toMatchObject({ code: 'withheld' });
    expect(counts.leaves - before).toBe(10);
    expect((await a.head()).sth_withheld).toBe('fork');
    await a.close();
  }, 120_000);
});

describe('what a full check found, kept for the next start', () => {
  it('a fork found by one full check withholds the next start before it reads a leaf; a passing check removes it', async () => {
    const { db, highWater } = await grown('sqlite', 4, 4);
    const dir = mkdtempSync(join(tmpdir(), 'svc-findings-'));
    const record = new FileFindingsRecord(join(dir, 'ledger-findings.json'));
    await db.sql('UPDATE {leaves} SET data = ? WHERE idx = 3', new Uint8Array(32));
    const checker = ledgerOn(await db.open(), highWater, record);
    await checker.audit.fullCheck();
    expect(checker.audit.withheld()).toBe('fork');
    await checker.close();
    expect(record.read()).toMatchObject({ withheld: 'fork', inconsistent_sizes: [4, 8, 12, 16] });
    // The next opener does not read leaf 3, yet withholds and lists what the check found.
    const next = ledgerOn(await db.open(), highWater, record);
    await expect(next.append([h('over it')])).rejects.toMatchObject({ code: 'withheld' });
    expect(await next.history(false)).toMatchObject({ consistent: false, inconsistent_sizes: [4, 8, 12, 16] });
    await next.close();
    // Mended, a full check passes and removes the record; the start after it signs.
    await db.sql('UPDATE {leaves} SET data = ? WHERE idx = 3', h('0.3'));
    const mended = ledgerOn(await db.open(), highWater, record);
    await mended.audit.fullCheck();
    expect(record.read()).toBeNull();
    await mended.close();
    const after = ledgerOn(await db.open(), highWater, record);
    expect((await after.append([h('after the repair')])).head.tree_size).toBe(17);
    await after.close();
  });

  it('a record that cannot be read withholds as unverifiable', () => {
    for (const text of ['', 'not json', '{"withheld":"fine"}', '{"withheld":"fork","inconsistent_sizes":[-1],"forked_sizes":[],"found":0}'])
      expect(parseFindings(text).withheld).toBe('unverifiable');
    expect(parseFindings('{"withheld":"rollback","inconsistent_sizes":[3],"forked_sizes":[],"found":1}')).toMatchObject({
      withheld: 'rollback',
    });
  });
});

describe("the background check's share of a core", () => {
  it('after any slice, the slice and its rest together hold the CPU it took at most `share` of the time (property)', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 5000, noNaN: true }),
        fc.double({ min: 0.01, max: 5000, noNaN: true }),
        fc.double({ min: 0.01, max: 1, noNaN: true }),
        (cpu, wall, share) => {
          const r = restMs(cpu, wall, share);
          expect(r).toBeGreaterThanOrEqual(0);
          // CPU over the slice and its rest is at most the share (or the slice alone was already under it).
          expect(cpu / (wall + r)).toBeLessThanOrEqual(Math.max(share, cpu / wall) + 1e-9);
          if (r > 0) expect(cpu / (wall + r)).toBeCloseTo(share, 6);
        },
      ),
    );
    // Two threads busy through a 100 ms slice (200 ms of CPU) at a tenth: 1.9 s of rest, not 0.9 s.
    expect(restMs(200, 100, 0.1)).toBeCloseTo(1900);
    expect(restMs(200, 100, 1)).toBe(0);
  });

  it('what the process spends while the check rests counts, up to TAIL of the slice before (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            cpu: fc.double({ min: 1, max: 400, noNaN: true }),
            // A slice's CPU over its wall time: above 1 when the store's thread reads beside it.
            busy: fc.double({ min: 0.2, max: 2, noNaN: true }),
            // What the process spends during the rest after it: V8 collecting, or other requests.
            after: fc.double({ min: 0, max: 3, noNaN: true }),
          }),
          { minLength: 2, maxLength: 30 },
        ),
        fc.double({ min: 0.01, max: 0.9, noNaN: true }),
        async (slices, share) => {
          const clock = { wall: 0, cpu: 0 };
          let rested = 0;
          let rests = 0;
          const pending: number[] = [];
          const pacer = new Pacer(
            share,
            () => ({ ...clock }),
            async (ms) => {
              rested += ms;
              rests++;
              clock.wall += ms;
              clock.cpu += pending.shift()!;
            },
          );
          let charged = 0;
          for (const [i, s] of slices.entries()) {
            pacer.slice();
            clock.cpu += s.cpu;
            clock.wall += s.cpu / s.busy;
            const after = s.cpu * s.after;
            pending.push(after);
            await pacer.rest();
            charged += s.cpu + (i < slices.length - 1 ? Math.min(after, s.cpu * TAIL) : 0);
          }
          expect(rests).toBe(slices.length);
          // Up to TAIL of each slice, what was spent after it is the check's: slices and those tails
          // together stay within the share (the last tail is never rested for).
          expect(charged).toBeLessThanOrEqual(share * clock.wall + 1e-6);
          // And never more than TAIL of it: a busy process's requests slow the check, never stop it.
          const sliceCpu = slices.reduce((a, s) => a + s.cpu, 0);
          expect(rested).toBeLessThanOrEqual(((1 + TAIL) * sliceCpu) / share + 1e-6);
        },
      ),
    );
    expect(tailMs(100, 30)).toBe(30);
    expect(tailMs(100, 300)).toBe(100 * TAIL);
  });
});
