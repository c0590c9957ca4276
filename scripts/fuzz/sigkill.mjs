// SIGKILL during appends: a child appends batches to a ledger and prints each acknowledgement; it is
// killed at random points, again and again; then every acknowledged leaf must be in the log, no
// size may carry two roots, and the full check must pass.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { namesFor, toHex } from '@svc/core';
import { testKeys } from '@svc/core/testing';

const server = fileURLToPath(new URL('../../packages/server/', import.meta.url));
const { Ledger, SqliteStore } = await import(join(server, 'dist', 'internal.js'));
const LOOP = join(server, 'test', 'fixtures', 'append-loop.mjs');

export async function sigkillCampaign({ until, seed }) {
  const dir = mkdtempSync(join(tmpdir(), 'svc-sigkill-'));
  const file = join(dir, 'l.sqlite');
  let s = seed >>> 0 || 1;
  const rand = () => (s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 2 ** 32;
  const acked = [];
  let kills = 0;
  while (Date.now() < until) {
    const child = spawn(process.execPath, [LOOP, file, `r${kills}`], { stdio: ['ignore', 'pipe', 'inherit'] });
    let buf = '';
    let started;
    const first = new Promise((r) => (started = r));
    child.stdout.on('data', (c) => {
      started();
      buf += c;
      let i;
      while ((i = buf.indexOf('\n')) >= 0) {
        const [, tag, k, f, count] = buf.slice(0, i).split(' ');
        buf = buf.slice(i + 1);
        acked.push({ tag, k: Number(k), first: Number(f), count: Number(count) });
      }
    });
    await Promise.race([first, new Promise((r) => setTimeout(r, 20_000))]);
    await new Promise((r) => setTimeout(r, Math.floor(rand() * 400)));
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    kills++;
  }
  const store = new SqliteStore(file);
  const K = testKeys('ledger-crash');
  const ledger = new Ledger({ store, names: namesFor('svc'), log: 'svc-ledger', sthKey: K.sth, isPublished: () => true });
  await ledger.audit.fullCheck();
  const rows = await store.leaves(0, await store.size()).catch(() => []);
  let leaves = 0;
  let lost = 0;
  for (const a of acked) {
    for (let j = 0; j < a.count; j++) {
      leaves++;
      const want = createHash('sha256').update(`${a.tag}-${a.k}-${j}`).digest('hex');
      const got = rows[a.first + j]?.data;
      if (!got || toHex(got) !== want) lost++;
    }
  }
  const splitHeads = store.db.prepare('SELECT tree_size FROM heads GROUP BY tree_size HAVING COUNT(DISTINCT root_hash) > 1').all().length;
  const withheld = ledger.audit.withheld();
  const size = await store.size();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
  return { kills, acknowledged: leaves, lost, splitHeads, withheld, size };
}
