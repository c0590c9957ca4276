#!/usr/bin/env node
// npm run bench:scaling [-- --layouts 1x2,2x1 --seconds 10 --rounds 1]: POST /api/v1/verify throughput of one
// `svc serve` per layout (processes x worker threads), on Node 24 with node:crypto, against the raw
// one-core ML-DSA-87 verify rate measured in the same run and runtime.
//
// Per-core efficiency = (requests/s / raw verifies/s on one core) / cores the server used, where
// "cores used" is the CPU time of the server's whole process tree (every process and thread, read
// from /proc) over the wall time. The load generator shares the machine, so its CPU is not charged
// to the server. The main threads' CPU per request is reported apart: it is the ceiling of a
// one-process server (every request is parsed and answered there).
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureNode24, onNode24 } from '../lib/node24.mjs';
import { machine, percentiles, sampleLatency } from './util.mjs';

// The server and its SQLite need Node 24: run again on it when this Node is older.
onNode24();

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
};
const CORES = cpus().length;
const defaults = CORES <= 2 ? '1x1,1x2,2x1,2x2' : `1x${CORES},${Math.max(2, CORES / 4)}x4,${CORES / 2}x2,${CORES}x1`;
const layouts = arg('layouts', defaults)
  .split(',')
  .map((s) => s.split('x').map(Number));
const seconds = Number(arg('seconds', '10'));
const rounds = Number(arg('rounds', '1'));

if (process.argv.includes('--child')) await childMain();
else parentMain();

function parentMain() {
  const node24 = ensureNode24();
  if (!node24) {
    console.log('Node 24 is not available here: the scaling benchmark needs node:crypto ML-DSA');
    process.exit(0);
  }
  const r = spawnSync(node24, ['--no-warnings', fileURLToPath(import.meta.url), '--child', ...process.argv.slice(2)], {
    stdio: 'inherit',
  });
  process.exit(r.status ?? 1);
}

/** CPU seconds of a process tree: every descendant of `root`, threads included (/proc). */
function treeCpu(root) {
  const tick = 100; // USER_HZ on Linux
  const stat = (pid) => {
    try {
      const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
      return { ppid: Number(f[1]), cpu: (Number(f[11]) + Number(f[12])) / tick };
    } catch {
      return null;
    }
  };
  const all = new Map();
  for (const d of readdirSync('/proc')) if (/^\d+$/.test(d)) all.set(Number(d), stat(d));
  let total = 0;
  const mains = [];
  const inTree = (pid) => {
    for (let p = pid, n = 0; p > 1 && n < 64; p = all.get(p)?.ppid ?? 0, n++) if (p === root) return true;
    return false;
  };
  for (const [pid, s] of all) {
    if (!s || !inTree(pid)) continue;
    total += s.cpu;
    try {
      const m = readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8');
      const f = m.slice(m.lastIndexOf(')') + 2).split(' ');
      mains.push((Number(f[11]) + Number(f[12])) / tick);
    } catch {}
  }
  return { total, main: mains.reduce((a, b) => a + b, 0) };
}

async function childMain() {
  const { createPublicKey, verify } = await import('node:crypto');
  const { default: autocannon } = await import('autocannon');
  const { fromHex, utf8 } = await import('@svc/core/primitives');
  const { namesFor } = await import('@svc/core');
  const { receiptMessage } = await import('@svc/core/issue');
  const { Issuer, Keyring, ensureKeys, loadConfig } = await import('../../packages/server/dist/internal.js');
  console.log(`machine: ${machine()}`);
  console.log(`runtime: Node ${process.version} (OpenSSL ${process.versions.openssl})`);
  const dir = mkdtempSync(join(tmpdir(), 'svc-scaling-'));
  const cfg = loadConfig({ SVC_DATA_DIR: dir });
  ensureKeys(cfg, () => {});
  const ring = Keyring.load(join(dir, 'keys')).ring;
  const bundle = await new Issuer(ring, namesFor('svc'), null, { bridge: false }).issue({ answer: 'Benchmark answer. '.repeat(10) });
  const body = JSON.stringify(bundle);

  // Baseline: raw one-core verifies of the same receipt, node:crypto, this process.
  const key = createPublicKey({
    key: Buffer.from(fromHex(bundle.receiptKey.public_key_hex)),
    format: 'raw-public',
    asymmetricKeyType: 'ml-dsa-87',
  });
  const msg = receiptMessage(bundle.receipt);
  const sig = fromHex(bundle.receipt.sig);
  const context = utf8('svc-provenance-v1');
  for (let i = 0; i < 200; i++) verify(null, msg, { key, context }, sig);
  // The baseline is measured again beside every layout (this machine's speed drifts by tens of
  // percent over minutes): each layout's ratio uses the mean of the rates just before and after it.
  const rawRate = () => {
    const t0 = performance.now();
    let n = 0;
    while (performance.now() - t0 < 1500) {
      if (!verify(null, msg, { key, context }, sig)) throw new Error('raw verify failed');
      n++;
    }
    return n / ((performance.now() - t0) / 1000);
  };
  console.log('');
  console.log(
    '| processes x workers | req/s | raw verifies/s, one core | server cores used | per-core efficiency | main-thread CPU per request | errors | pubkey p99 |',
  );
  console.log('|---|---|---|---|---|---|---|---|');
  const cli = fileURLToPath(new URL('../../packages/server/dist/cli.js', import.meta.url));
  const runs = [];
  for (let round = 0; round < rounds; round++) for (const l of layouts) runs.push(l);
  for (const [procs, workers] of runs) {
    const rawBefore = rawRate();
    const port = 19000 + Math.floor(Math.random() * 1000);
    const server = spawn(process.execPath, ['--no-warnings', cli, 'serve'], {
      env: {
        ...process.env,
        SVC_DATA_DIR: dir,
        PORT: String(port),
        SVC_PROCESSES: String(procs),
        SVC_WORKERS: String(workers),
        SVC_RATE_VERIFY: '0',
        SVC_RATE_READ: '0',
        SVC_RATE_MODEL_KEYS: '0',
        SVC_LOG: '0',
        SVC_LEDGER: '0',
        SVC_METRICS: 'off',
      },
      stdio: 'ignore',
    });
    const base = `http://127.0.0.1:${port}`;
    for (let i = 0; i < 200; i++) {
      try {
        if ((await fetch(`${base}/readyz`)).status === 200) break;
      } catch {}
      await new Promise((r) => setTimeout(r, 100));
    }
    const load = { url: `${base}/api/v1/verify`, method: 'POST', body, headers: { 'content-type': 'application/json' } };
    const connections = Math.max(8, 4 * procs * Math.max(1, workers));
    await autocannon({ ...load, connections, duration: 2 });
    const reader = sampleLatency(`${base}/api/provenance/pubkey`);
    const before = treeCpu(server.pid);
    const w0 = performance.now();
    const result = await autocannon({ ...load, connections, duration: seconds });
    const wall = (performance.now() - w0) / 1000;
    const after = treeCpu(server.pid);
    const latencies = await reader.stop();
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
    const rps = result.requests.total / wall;
    const used = (after.total - before.total) / wall;
    const mainUs = ((after.main - before.main) / result.requests.total) * 1e6;
    const errors = result.errors + result.non2xx + result.timeouts;
    const p = percentiles(latencies);
    const raw = (rawBefore + rawRate()) / 2;
    console.log(
      `| ${procs} x ${workers} | ${rps.toFixed(0)} | ${raw.toFixed(0)} | ${used.toFixed(2)} | ${(rps / raw / used).toFixed(2)} | ${mainUs.toFixed(0)} us | ${errors} | ${p.p99.toFixed(1)} ms |`,
    );
  }
  rmSync(dir, { recursive: true, force: true });
}
