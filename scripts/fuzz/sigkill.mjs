// SIGKILL during appends: children append batches to a ledger and print each acknowledgement; they
// are killed at random points, again and again; then every acknowledged leaf must be in the log, no
// size may carry two roots, and the full check must pass. SQLite: one appender at a time.
// PostgreSQL (`pg`): three at once on one log, one of them killed at a time and replaced.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { namesFor, toHex } from '@svc/core';
import { testKeys } from '@svc/core/testing';

const server = fileURLToPath(new URL('../../packages/server/', import.meta.url));
const { Ledger, PgStore, SqliteStore } = await import(join(server, 'dist', 'internal.js'));
const { startPostgres } = await import('../postgres.mjs');
const LOOP = join(server, 'test', 'fixtures', 'append-loop.mjs');

export async function sigkillCampaign({ until, seed, pg = false }) {
  const dir = mkdtempSync(join(tmpdir(), 'svc-sigkill-'));
  const server = pg ? await startPostgres() : null;
  const location = server ? server.url : join(dir, 'l.sqlite');
  if (server) await (await PgStore.open(location)).close(); // migrate before the appenders race
  let s = seed >>> 0 || 1;
  const rand = () => (s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 2 ** 32;
  const acked = [];
  let kills = 0;
  const spawnOne = (tag) => {
    const child = spawn(process.execPath, [LOOP, location, tag], { stdio: ['ignore', 'pipe', 'ignore'] });
    let buf = '';
    let started;
    const first = new Promise((r) => (started = r));
    child.stdout.on('data', (c) => {
      started();
      buf += c;
      let i;
      while ((i = buf.indexOf('\n')) >= 0) {
        const [what, t, k, f, count] = buf.slice(0, i).split(' ');
        buf = buf.slice(i + 1);
        if (what === 'ack') acked.push({ tag: t, k: Number(k), first: Number(f), count: Number(count) });
      }
    });
    return { child, first };
  };
  const live = [];
  for (let i = 0; i < (pg ? 3 : 1); i++) live.push(spawnOne(`r${kills}-${i}`));
  while (Date.now() < until) {
    const victim = live.splice(Math.floor(rand() * live.length), 1)[0];
    await Promise.race([victim.first, new Promise((r) => setTimeout(r, 20_000))]);
    await new Promise((r) => setTimeout(r, Math.floor(rand() * 400)));
    victim.child.kill('SIGKILL');
    await new Promise((r) => (victim.child.exitCode !== null ? r() : victim.child.once('exit', r)));
    kills++;
    live.push(spawnOne(`r${kills}`));
  }
  for (const p of live) p.child.kill('SIGKILL');
  await Promise.all(live.map((p) => new Promise((r) => (p.child.exitCode !== null ? r() : p.child.once('exit', r)))));
  const store = server ? await PgStore.open(location) : new SqliteStore(location);
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
  const heads = await store.heads(0, 10_000_000);
  const roots = new Map();
  for (const h of heads) roots.set(h.tree_size, new Set([...(roots.get(h.tree_size) ?? []), h.root_hash]));
  const splitHeads = [...roots.values()].filter((r) => r.size > 1).length;
  const withheld = ledger.audit.withheld();
  const size = await store.size();
  await store.close();
  server?.stop();
  rmSync(dir, { recursive: true, force: true });
  return { kills, acknowledged: leaves, lost, splitHeads, withheld, size, pg };
}
