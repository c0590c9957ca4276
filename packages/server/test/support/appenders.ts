// Appending processes for the crash and failover tests, and the check that nothing they were told
// was stored has been lost.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { namesFor } from '@svc/core';
import { toHex } from '@svc/core/primitives';
import { MemoryTree, treeRoot } from '@svc/core/merkle';
import { testKeys } from '@svc/core/testing';
import { expect } from 'vitest';
import { Ledger } from '../../src/internal.js';
import type { TestDb } from './backends.js';

/** Spawn the append loop against a store; collect its acknowledgements. */
export function appendLoop(location: string, tag: string, acked: Ack[], env: Record<string, string> = {}) {
  const script = fileURLToPath(new URL('../fixtures/append-loop.mjs', import.meta.url));
  const child = spawn(process.execPath, [script, location, tag], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, ...env } });
  let buf = '';
  const lines: ((line: string) => void)[] = [];
  child.stdout.on('data', (c) => {
    buf += c;
    let i: number;
    while ((i = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      const [what, t, k, first, count] = line.split(' ');
      if (what === 'ack') acked.push({ tag: t!, k: Number(k), first: Number(first), count: Number(count), at: performance.now() });
      for (const l of lines) l(line);
    }
  });
  return { child, onLine: (f: (line: string) => void) => lines.push(f) };
}

export interface Ack {
  tag: string;
  k: number;
  first: number;
  count: number;
  at: number;
}

/** Every acknowledged leaf is at its index; heads agree with the leaves; the audit passes. */
export async function expectAllAcknowledged(db: TestDb, acked: Ack[]) {
  const store = await db.open();
  const ledger = new Ledger({
    store,
    names: namesFor('svc'),
    log: 'svc-ledger',
    sthKey: testKeys('ledger-crash').sth,
    isPublished: () => true,
  });
  await ledger.init();
  await ledger.audit.fullCheck();
  const rows = await store.leaves(0, await store.size());
  for (const a of acked) {
    for (let j = 0; j < a.count; j++) {
      const data = new Uint8Array(createHash('sha256').update(`${a.tag}-${a.k}-${j}`).digest());
      expect(toHex(rows[a.first + j]!.data)).toBe(toHex(data));
    }
  }
  expect(ledger.audit.withheld()).toBeNull();
  expect(await ledger.history(false)).toMatchObject({ consistent: true, forked_sizes: [], inconsistent_sizes: [] });
  const dup = await db.sql('SELECT tree_size FROM {heads} GROUP BY tree_size HAVING COUNT(DISTINCT root_hash) > 1');
  expect(dup).toEqual([]);
  const tree = new MemoryTree();
  for (const r of rows) tree.appendData(r.data);
  for (const r of await store.heads(0, 1_000_000)) expect(r.root_hash).toBe(toHex(treeRoot(tree, r.tree_size)));
  await ledger.close();
}
