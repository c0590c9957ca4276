// Crossings of one batch (#32 item 4): a head signed before the transaction for the tree the audit
// has checked is committed in one round trip to the writer thread, and with no request back from
// the storage process; whenever the tree is not the one expected (another writer, a large batch),
// the store seals inside the transaction as before. Either way the heads are the store's own tree's
// and acknowledged means durable and signed.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { namesFor, verifyBundle } from '@svc/core';
import { toHex } from '@svc/core/primitives';
import { MemoryTree, treeRoot } from '@svc/core/merkle';
import { testKeys } from '@svc/core/testing';
import { describe, expect, it } from 'vitest';
import { Ledger, ProcessStore, SqliteStore, type LedgerStore } from '../../src/internal.js';

const K = testKeys('crossings');
const names = namesFor('svc');
const h = (s: string) => new Uint8Array(createHash('sha256').update(s).digest());

async function ledgerOn(store: LedgerStore): Promise<Ledger> {
  const ledger = new Ledger({ store, names, log: 'svc-ledger', sthKey: K.sth, isPublished: () => true });
  await ledger.init();
  return ledger;
}

/** Every head is signed, for the root of the leaves appended so far, and the full recheck finds nothing. */
async function expectSound(ledger: Ledger, leaves: Uint8Array[]): Promise<void> {
  const head = await ledger.head();
  const ref = new MemoryTree();
  for (const l of leaves) ref.appendData(l);
  expect(head.tree_size).toBe(leaves.length);
  expect(head.root_hash).toBe(toHex(treeRoot(ref, leaves.length)));
  expect((await verifyBundle(head.signed_tree_head, { trustedKeys: K.trustedKeys })).verdict.overallOk).toBe(true);
  await ledger.audit.fullCheck();
  expect(ledger.audit.withheld()).toBeNull();
  const history = await ledger.history(false);
  expect(history.consistent).toBe(true);
}

describe('crossings per batch', () => {
  it('writer thread (svc issue opens its store so): one round trip per small batch; two when another writer moved the tree, or for a large batch', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'svc-crossings-')), 'ledger.sqlite');
    const store = new SqliteStore(file);
    const ledger = await ledgerOn(store);
    const leaves: Uint8Array[] = [];
    const roundTrips = async (batch: Uint8Array[]) => {
      const before = store.writerRoundTrips();
      leaves.push(...batch);
      await ledger.append(batch);
      return store.writerRoundTrips() - before;
    };
    for (let i = 0; i < 5; i++) expect(await roundTrips([h(`a${i}`)])).toBe(1);
    // Another writer on the same file: the tree this process checked is no longer the stored one.
    const other = await ledgerOn(new SqliteStore(file));
    const theirs = [h('theirs-0'), h('theirs-1')];
    await other.append(theirs);
    leaves.push(...theirs);
    expect(await roundTrips([h('after-other')])).toBe(2);
    // A large batch is hashed by the writer thread and sealed in between, as before.
    expect(await roundTrips(Array.from({ length: 1500 }, (_, i) => h(`big${i}`)))).toBe(2);
    expect(await roundTrips([h('small-again')])).toBe(1);
    await expectSound(ledger, leaves);
    await other.close();
    await ledger.close();
  }, 60_000);

  it('storage process (svc serve): no request back for a seal while the tree is the expected one', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'svc-crossings-')), 'ledger.sqlite');
    const store = await ProcessStore.open(file);
    const ledger = await ledgerOn(store);
    const leaves: Uint8Array[] = [];
    for (let i = 0; i < 5; i++) {
      const batch = [h(`p${i}`), h(`q${i}`)];
      leaves.push(...batch);
      const before = { ...store.crossings };
      await ledger.append(batch);
      expect(store.crossings.seals - before.seals).toBe(0);
    }
    // A batch beyond the pre-signing bound is sealed across the process boundary, and still sound.
    const big = Array.from({ length: 1100 }, (_, i) => h(`pbig${i}`));
    leaves.push(...big);
    const seals = store.crossings.seals;
    await ledger.append(big);
    expect(store.crossings.seals - seals).toBe(1);
    await expectSound(ledger, leaves);
    // A lookup of many entries, and the paths of many, are one request each, whatever their number.
    const asked = [...leaves.slice(0, 300), h('absent'), leaves[3]!];
    const before = store.crossings.requests;
    const found = await ledger.findAll(asked);
    expect(store.crossings.requests - before).toBe(1);
    expect(found).toEqual([...Array.from({ length: 300 }, (_, i) => i), undefined, 3]);
    const paths = store.crossings.requests;
    await ledger.paths(
      Array.from({ length: 300 }, (_, i) => i),
      leaves.length,
    );
    expect(store.crossings.requests - paths).toBe(2); // the size, then the subtrees
    await ledger.close();
  }, 60_000);
});
