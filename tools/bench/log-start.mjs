// A log that can grow for years (issue 56): for a log of n leaves against an empty one, in the same
// run, on SQLite and PostgreSQL:
// - open to the first signed head (openLedger, then one append), as svc serve and openIssuer pay it;
// - `svc issue --answer` wall time, a process of its own;
// - the background full check at SVC_LEDGER_CHECK_SHARE: its duration and the CPU it took.
// node tools/bench/log-start.mjs [--sizes 1e6,1e7] [--share 0.1] [--no-pg] [--no-sqlite] [--no-check]
import { onNode24 } from '../lib/node24.mjs';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createHash } from 'node:crypto';
import pg from 'pg';
import { namesFor } from '@svc/core';
import { ensureKeys, loadConfig, openLedger } from '../../packages/server/dist/internal.js';
import { startPostgres } from '../lib/postgres.mjs';
import { bulkPg, bulkSqlite } from './ledger.mjs';
import { line, machine } from './util.mjs';

// The server and its SQLite need Node 24: run again on it when this Node is older.
onNode24();

const CLI = fileURLToPath(new URL('../../packages/server/dist/cli.js', import.meta.url));
const names = namesFor('svc');
const quiet = () => {};
const leaf = (s) => new Uint8Array(createHash('sha256').update(s).digest());

/** A data folder (keys) whose log holds n leaves under a signed head, built in bulk as a restore would. */
async function place(n, url) {
  const dir = mkdtempSync(join(tmpdir(), 'svc-log-start-'));
  const env = { SVC_DATA_DIR: dir, SVC_LOG: '0', ...(url ? { SVC_DATABASE_URL: url } : {}) };
  const cfg = loadConfig(env);
  const ring = ensureKeys(cfg, quiet);
  if (n > 0) {
    if (url) await bulkPg(url, n);
    else bulkSqlite(join(dir, 'ledger.sqlite'), n);
  }
  // Bulk rows have no head: one full check, one append, and the log is as a service leaves it.
  const ledger = await openLedger(cfg, names, ring, quiet, { background: false, batchMs: 0 });
  if (n > 0) {
    await ledger.audit.fullCheck();
    await ledger.append([leaf('sealed')]);
  }
  await ledger.close();
  if (url && n > 0) {
    // A log that grew over months has been vacuumed and its writes checkpointed: measured right
    // after a 3.4 GB bulk build, svc issue paid for the build's aftermath (1.30 at 10^7 once, 0.87-0.94
    // on the same database 25 minutes later; docs/benchmarks.md).
    const c = new pg.Client(url);
    await c.connect();
    await c.query('VACUUM ANALYZE');
    await c.query('CHECKPOINT');
    await c.end();
  }
  return { dir, env, cfg, ring };
}

/** Open to the first signed head; and, for comparison, the next append on the same open ledger. */
async function firstHead(p) {
  const t = performance.now();
  const ledger = await openLedger(p.cfg, names, p.ring, quiet, { background: false, batchMs: 0 });
  await ledger.append([leaf(`first ${t}`)]);
  const ms = performance.now() - t;
  const t2 = performance.now();
  await ledger.append([leaf(`second ${t}`)]);
  const nextMs = performance.now() - t2;
  await ledger.close();
  return { ms, nextMs };
}
/**
 * The empty log and the large one measured in turn, five times each: a run of one minutes after
 * the other's (and after a build of 10^6 leaves) compared the machine's state, not the logs.
 */
async function paired(empty, big) {
  const e = [];
  const b = [];
  const ei = [];
  const bi = [];
  for (let i = 0; i < 5; i++) {
    e.push(await firstHead(empty));
    b.push(await firstHead(big));
    ei.push(svcIssue(empty));
    bi.push(svcIssue(big));
  }
  const m = (runs, k) => median(runs.map((r) => r[k]));
  return {
    emptyHead: { ms: m(e, 'ms'), nextMs: m(e, 'nextMs') },
    head: { ms: m(b, 'ms'), nextMs: m(b, 'nextMs') },
    emptyIssue: median(ei),
    issue: median(bi),
  };
}

function svcIssue(p) {
  const t = performance.now();
  const r = spawnSync(process.execPath, [CLI, 'issue', '--answer', `bench ${t}`, '--data-dir', p.dir], {
    env: { ...process.env, ...p.env },
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`svc issue exited ${r.status}: ${r.stderr}`);
  return performance.now() - t;
}

async function backgroundCheck(p, share) {
  const cfg = { ...p.cfg, ledgerCheckShare: share, ledgerAuditMs: 0 };
  const cpu0 = process.cpuUsage();
  const t = performance.now();
  let done;
  const finished = new Promise((r) => (done = r));
  const ledger = await openLedger(cfg, names, p.ring, (event) => event.startsWith('ledger_full_check') && done(), {});
  // The check's pauses do not keep a process alive (an issuer's script may end meanwhile): this does.
  const alive = setInterval(() => {}, 1000);
  await finished;
  clearInterval(alive);
  const wallMs = performance.now() - t;
  const cpu = process.cpuUsage(cpu0);
  await ledger.close();
  return { wallMs, cpuMs: (cpu.user + cpu.system) / 1000 };
}

/** What the log takes on disk: the SQLite file and its WAL, or the PostgreSQL database. */
async function storedBytes(p) {
  if (!p.env.SVC_DATABASE_URL)
    return ['', '-wal'].reduce(
      (a, ext) => a + (existsSync(join(p.dir, `ledger.sqlite${ext}`)) ? statSync(join(p.dir, `ledger.sqlite${ext}`)).size : 0),
      0,
    );
  const c = new pg.Client(p.env.SVC_DATABASE_URL);
  await c.connect();
  const r = await c.query('SELECT pg_database_size(current_database())::bigint AS n');
  await c.end();
  return Number(r.rows[0].n);
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (ms) => (ms >= 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${ms.toFixed(0)} ms`);

export async function logStartBench({ sizes = [1_000_000], share = 0.1, withPg = true, withSqlite = true, check = true } = {}) {
  const server = withPg ? await startPostgres({ durable: true }) : null;
  let dbs = 0;
  const database = async () => {
    const c = new pg.Client(server.url);
    await c.connect();
    const name = `start_${dbs++}`;
    await c.query(`CREATE DATABASE ${name}`);
    await c.end();
    return server.url.replace(/\/postgres$/, `/${name}`);
  };
  try {
    for (const backend of [...(withSqlite ? ['SQLite'] : []), ...(withPg ? ['PostgreSQL'] : [])]) {
      const url = backend === 'PostgreSQL' ? database : null;
      const empty = await place(0, url ? await url() : undefined);
      const emptyCheck = check ? await backgroundCheck(empty, share) : null;
      for (const n of sizes) {
        const t = performance.now();
        const big = await place(n, url ? await url() : undefined);
        const e = n.toExponential(0);
        line(`${backend} log of ${e} leaves built (bulk, one full check, one head) in`, fmt(performance.now() - t));
        line(`${backend} ${e}: stored size`, `${((await storedBytes(big)) / 1e6).toFixed(0)} MB`);
        const { emptyHead: eh, head, emptyIssue: ei, issue } = await paired(empty, big);
        line(
          `${backend}, the empty log in turn with it: first head (next append), svc issue`,
          `${fmt(eh.ms)} (${fmt(eh.nextMs)}), ${fmt(ei)}`,
        );
        line(`${backend} ${e}: open to first signed head / the empty log's`, `${(head.ms / eh.ms).toFixed(2)} (${fmt(head.ms)})`, '<= 1.1');
        // What one more append costs on this store, start check long done: the part that is the store's.
        line(`${backend} ${e}: the next append / the empty log's`, `${(head.nextMs / eh.nextMs).toFixed(2)} (${fmt(head.nextMs)})`);
        line(`${backend} ${e}: svc issue --answer / the empty log's`, `${(issue / ei).toFixed(2)} (${fmt(issue)})`, '<= 1.1');
        if (check) {
          const bg = await backgroundCheck(big, share);
          // PostgreSQL's own CPU is its server's, not this process's: the share is this process's.
          line(
            `${backend} ${e}: background full check at share ${share}`,
            `${fmt(bg.wallMs)} wall, ${fmt(bg.cpuMs)} CPU here, share ${(bg.cpuMs / bg.wallMs).toFixed(3)} (empty: ${fmt(emptyCheck.wallMs)})`,
          );
        }
        rmSync(big.dir, { recursive: true, force: true });
      }
      rmSync(empty.dir, { recursive: true, force: true });
    }
  } finally {
    server?.stop();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      sizes: { type: 'string', default: '1e6' },
      share: { type: 'string', default: '0.1' },
      'no-pg': { type: 'boolean' },
      'no-sqlite': { type: 'boolean' },
      'no-check': { type: 'boolean' },
    },
  });
  console.log(`machine: ${machine()}; Node ${process.version}`);
  await logStartBench({
    sizes: values.sizes.split(',').map(Number),
    share: Number(values.share),
    withPg: !values['no-pg'],
    withSqlite: !values['no-sqlite'],
    check: !values['no-check'],
  });
}
