#!/usr/bin/env node
// node tools/bench/connections.mjs: `svc serve` with two processes under clients that open a
// connection per request (GET /healthz, 32 at a time), with connections accepted by each server
// process from the kernel (the default) against Node's round-robin hand-off through the primary
// (NODE_CLUSTER_SCHED_POLICY=rr), the baseline, in the same run. Reports requests/s, the primary's
// CPU share and the latency percentiles of each.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { line, machine } from './util.mjs';

const CLI = fileURLToPath(new URL('../../packages/server/dist/cli.js', import.meta.url));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function get(port) {
  return new Promise((resolve) => {
    const r = request(`http://127.0.0.1:${port}/healthz`, { agent: false, headers: { connection: 'close' }, timeout: 5000 }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode));
    });
    r.on('timeout', () => r.destroy());
    r.on('error', () => resolve(0));
    r.end();
  });
}

/** CPU seconds of one process's own threads (/proc), not its children's. */
function cpuOf(pid) {
  const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
}

async function run(policy, seconds) {
  const dir = mkdtempSync(join(tmpdir(), 'svc-conn-bench-'));
  const port = 21000 + Math.floor(Math.random() * 1000);
  const env = {
    ...process.env,
    SVC_DATA_DIR: dir,
    PORT: String(port),
    SVC_PROCESSES: '2',
    SVC_WORKERS: '1',
    SVC_LEDGER: '0',
    SVC_LOG: '0',
    SVC_RATE_READ: '0',
  };
  if (policy) env.NODE_CLUSTER_SCHED_POLICY = policy;
  else delete env.NODE_CLUSTER_SCHED_POLICY;
  const child = spawn(process.execPath, [CLI, 'serve'], { env, detached: true, stdio: 'ignore' });
  try {
    for (let i = 0; i < 100 && (await get(port)) !== 200; i++) await sleep(100);
    let done = false;
    let ok = 0;
    const latency = [];
    const cpu0 = cpuOf(child.pid);
    const t0 = performance.now();
    setTimeout(() => (done = true), seconds * 1000);
    await Promise.all(
      Array.from({ length: 32 }, async () => {
        while (!done) {
          const t = performance.now();
          if ((await get(port)) === 200) ok++;
          latency.push(performance.now() - t);
        }
      }),
    );
    const wall = (performance.now() - t0) / 1000;
    latency.sort((a, b) => a - b);
    const at = (q) => latency[Math.min(latency.length - 1, Math.floor(latency.length * q))].toFixed(1);
    return { rate: ok / wall, primary: (cpuOf(child.pid) - cpu0) / wall, p50: at(0.5), p99: at(0.99), failed: latency.length - ok };
  } finally {
    try {
      process.kill(-child.pid, 'SIGTERM');
    } catch {}
    await new Promise((r) => child.once('exit', r));
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function connectionsBench({ seconds = 6 } = {}) {
  const rr = await run('rr', seconds);
  const kernel = await run(null, seconds);
  const show = (r) =>
    `${r.rate.toFixed(0)} req/s, primary ${(r.primary * 100).toFixed(0)}% busy, p50/p99 ${r.p50}/${r.p99} ms, ${r.failed} failed`;
  line('connection per request, round-robin through the primary (baseline)', show(rr));
  line('connection per request, each process accepts its own (default)', show(kernel));
  line('  default / baseline, requests/s', `${(kernel.rate / rr.rate).toFixed(2)}x`, '>= 1.0');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(`machine: ${machine()}`);
  console.log(`runtime: Node ${process.version}`);
  await connectionsBench();
}
