// SIGKILL during appends: children append batches to a ledger and print each acknowledgement; they
// are killed at random points, again and again; then every acknowledged leaf must be in the log, no
// size may carry two roots, and the full check must pass. SQLite: one appender at a time.
// PostgreSQL (`pg`): three at once on one log, and each round one of: an appender SIGKILLed and
// replaced (half the rounds), an appender frozen (SIGSTOP) for up to 3 s, the database frozen for up
// to 2 s, the database restarted, or every client backend terminated (pg_terminate_backend, as an
// operator or a failover does). An appender that exits on its own is a crash (a finding).
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { namesFor } from '@svc/core';
import { toHex } from '@svc/core/primitives';
import { testKeys } from '@svc/core/testing';
import pgDriver from 'pg';

const server = fileURLToPath(new URL('../../../packages/server/', import.meta.url));
const { Ledger, PgStore, SqliteStore } = await import(join(server, 'dist', 'internal.js'));
const { startPostgres } = await import('../../lib/postgres.mjs');
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
  const chaos = { appenderFreezes: 0, dbFreezes: 0, dbRestarts: 0, terminations: 0, crashes: 0, crashLogs: [] };
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  const spawnOne = (tag) => {
    // A frozen appender loses the writer role after 1.5 s idle in its transaction.
    const env = { ...process.env, PG_IDLE_TX_MS: '1500' };
    const child = spawn(process.execPath, [LOOP, location, tag], { stdio: ['ignore', 'pipe', 'pipe'], env });
    let killed = false;
    let errText = '';
    child.stderr.on('data', (c) => {
      errText = (errText + c).slice(-2000);
    });
    child.once('exit', (code, signal) => {
      if (killed) return;
      chaos.crashes++;
      chaos.crashLogs.push(
        `${tag} exit ${code ?? signal}: ${errText
          .split('\n')
          .filter((l) => !l.startsWith('append ') && !l.startsWith('open failed'))
          .join('\n')}`,
      );
    });
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
    const kill = () => {
      killed = true;
      child.kill('SIGCONT');
      child.kill('SIGKILL');
    };
    return { child, first, kill };
  };
  const live = [];
  for (let i = 0; i < (pg ? 3 : 1); i++) live.push(spawnOne(`r${kills}-${i}`));
  while (Date.now() < until) {
    const r = pg ? rand() : 0;
    if (r < 0.5) {
      const victim = live.splice(Math.floor(rand() * live.length), 1)[0];
      await Promise.race([victim.first, sleep(20_000)]);
      await sleep(Math.floor(rand() * 400));
      victim.kill();
      await new Promise((r) => (victim.child.exitCode !== null ? r() : victim.child.once('exit', r)));
      kills++;
      live.push(spawnOne(`r${kills}`));
    } else if (r < 0.7) {
      const frozen = live[Math.floor(rand() * live.length)];
      await Promise.race([frozen.first, sleep(20_000)]);
      frozen.child.kill('SIGSTOP');
      await sleep(500 + Math.floor(rand() * 2500));
      frozen.child.kill('SIGCONT');
      chaos.appenderFreezes++;
      await sleep(Math.floor(rand() * 400));
    } else if (r < 0.82) {
      server.freeze();
      await sleep(200 + Math.floor(rand() * 1800));
      server.thaw();
      chaos.dbFreezes++;
      await sleep(Math.floor(rand() * 400));
    } else if (r < 0.9) {
      server.pause();
      await sleep(200 + Math.floor(rand() * 800));
      server.resume();
      chaos.dbRestarts++;
      await sleep(Math.floor(rand() * 400));
    } else {
      // Every client backend but this one ended (57P01), a few times in a row.
      const admin = new pgDriver.Client(location);
      await admin.connect().catch(() => undefined);
      for (let t = 0; t < 5; t++) {
        await admin
          .query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND backend_type = 'client backend'")
          .catch(() => undefined);
        chaos.terminations++;
        await sleep(30 + Math.floor(rand() * 120));
      }
      await admin.end().catch(() => undefined);
    }
  }
  for (const p of live) p.kill();
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
  return { kills, acknowledged: leaves, lost, splitHeads, withheld, size, pg, ...chaos };
}
