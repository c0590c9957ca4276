// A false rollback between appenders (#30 row 2): a reader's audit opened its snapshot, another
// process committed a head and advanced the high-water mark, and only then did the audit read the
// mark: larger than anything its snapshot showed, so an honest log read as a rollback. The mark is
// now read before the snapshot opens. Here the commit lands exactly in that window, every time.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { namesFor } from '@svc/core';
import { sha256, utf8 } from '@svc/core/primitives';
import { testKeys } from '@svc/core/testing';
import { Ledger, MemoryHighWater, SqliteStore, type HighWaterHead, type LedgerStore } from '../../src/internal.js';
import { BACKENDS, testDb } from '../support/backends.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-hw-race-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const K = testKeys('hw-race');
const names = namesFor('svc');
const h = (s: string) => sha256(utf8(s));

function ledger(store: LedgerStore, highWater: { read(): HighWaterHead | null; advance(x: HighWaterHead): void; version?(): string }) {
  return new Ledger({ store, names, log: 'svc-ledger', sthKey: K.sth, isPublished: () => true, highWater, now: () => 1_800_000_000_000 });
}

describe('the high-water mark and a write in flight', () => {
  it.each(BACKENDS)(
    '%s: a head committed (and the mark advanced) between the snapshot opening and the audit reading the mark is no rollback',
    async (backend) => {
      const db = await testDb(backend);
      // One mark for the data folder, as both processes share keys/high-water.json.
      const shared = new MemoryHighWater();
      const writer = ledger(await db.open(), shared);
      await writer.init();
      await writer.append([h('first')]);
      const readerStore = await db.open();
      const reader = ledger(readerStore, shared);
      await reader.init();
      await reader.audit.fullCheck();
      expect((await reader.head()).sth_withheld).toBeUndefined();
      // The next snapshot the reader opens is pinned by its first read; then the writer commits.
      const open = readerStore.snapshot.bind(readerStore);
      let race = true;
      readerStore.snapshot = (read) =>
        open(async (r) => {
          await r.size();
          if (race) {
            race = false;
            await writer.append([h('second'), h('third')]);
          }
          return read(r);
        });
      // A write first, so the reader's next head read audits afresh (and opens the raced snapshot).
      await writer.append([h('before')]);
      const after = await reader.head();
      expect(shared.read()?.tree_size).toBe(4);
      expect(after.sth_withheld).toBeUndefined();
      // And the next read, outside the race, sees the grown log.
      readerStore.snapshot = open;
      const next = await reader.head();
      expect(next.sth_withheld).toBeUndefined();
      expect(next.tree_size).toBe(4);
      await writer.close();
      await reader.close();
    },
  );
});

describe('history and head from one set of findings (#30 row 9)', () => {
  it('a head withheld as unverifiable never stands beside a history that says consistent: true', async () => {
    let broken = false;
    const hw = new MemoryHighWater();
    const flaky = {
      read: () => (broken ? JSON.parse('{') : hw.read()),
      advance: (x: HighWaterHead) => hw.advance(x),
      version: () => String(broken),
    };
    const l = ledger(new SqliteStore(join(dir, 'history.sqlite')), flaky);
    await l.init();
    await l.append([h('one')]);
    await l.audit.fullCheck();
    expect((await l.history(false)).consistent).toBe(true);
    broken = true;
    expect((await l.head()).sth_withheld).toBe('unverifiable');
    const hist = await l.history(false);
    expect(hist.consistent).toBeNull();
    expect(hist.consistent_unknown).toBeDefined();
    await l.close();
  });
});
