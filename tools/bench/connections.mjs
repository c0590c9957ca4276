#!/usr/bin/env node
// node tools/bench/connections.mjs: who should accept a two-process `svc serve`'s connections.
// Node's round-robin hand-off through the primary (the default, NODE_CLUSTER_SCHED_POLICY=rr)
// against each process accepting its own from the kernel (=none), in the same run, for two kinds of
// client: one opening a connection per request (32 at a time, GET /healthz: requests/s, the
// primary's CPU share, latency), and a pool of 8 keep-alive connections opened one after another
// at low load, as a proxy's upstream pool fills, then used (how the requests split over processes).
import { onNode24 } from '../lib/node24.mjs';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { line, machine } from './util.mjs';

// The server and its SQLite need Node 24: run again on it when this Node is older.
onNode24();

const CLI = fileURLToPath(new URL('../../packages/server/dist/cli.js', import.meta.url));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function get(port, agent) {
  return new Promise((resolve) => {
    const r = request(
      `http://127.0.0.1:${port}/healthz`,
      agent ? { agent } : { agent: false, headers: { connection: 'close' }, timeout: 5000 },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode));
      },
    );
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

async function serve(policy, fn) {
  const dir = mkdtempSync(join(tmpdir(), 'svc-conn-bench-'));
  const port = 21000 + Math.floor(Math.random() * 1000);
  const env = {
    ...process.env,
    SVC_DATA_DIR: dir,
    PORT: String(port),
    SVC_PROCESSES: '2',
    SVC_WORKERS: '1',
    SVC_LEDGER: '0',
    SVC_RATE_READ: '0',
  };
  env.NODE_CLUSTER_SCHED_POLICY = policy;
  const child = spawn(process.execPath, [CLI, 'serve'], { env, detached: true, stdio: ['ignore', 'pipe', 'ignore'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  try {
    for (let i = 0; i < 100 && (await get(port)) !== 200; i++) await sleep(100);
    return await fn(port, child.pid, {
      mark: () => (out = ''),
      perProcess: () => {
        const per = new Map();
        for (const l of out.split('\n')) {
          if (!l.startsWith('{')) continue;
          const j = JSON.parse(l);
          if (j.event === 'request') per.set(j.pid, (per.get(j.pid) ?? 0) + 1);
        }
        return [...per.values()].sort((a, b) => b - a);
      },
    });
  } finally {
    try {
      process.kill(-child.pid, 'SIGTERM');
    } catch {}
    await new Promise((r) => child.once('exit', r));
    rmSync(dir, { recursive: true, force: true });
  }
}

const connectionPerRequest = (seconds) => async (port, pid) => {
  let done = false;
  let ok = 0;
  const latency = [];
  const cpu0 = cpuOf(pid);
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
  return `${(ok / wall).toFixed(0)} req/s, primary ${(((cpuOf(pid) - cpu0) / wall) * 100).toFixed(0)}% busy, p50/p99 ${at(0.5)}/${at(0.99)} ms`;
};

/** Three pools of 8 keep-alive connections, each opened one by one, 200 requests on each connection. */
const keepAlivePools = async (port, _pid, log) => {
  const splits = [];
  for (let round = 0; round < 3; round++) {
    const agents = Array.from({ length: 8 }, () => new Agent({ keepAlive: true, maxSockets: 1 }));
    for (const a of agents) {
      await get(port, a);
      await sleep(50);
    }
    log.mark();
    await Promise.all(
      agents.map(async (a) => {
        for (let k = 0; k < 200; k++) await get(port, a);
      }),
    );
    await sleep(300);
    splits.push(log.perProcess().concat([0, 0]).slice(0, 2).join('/'));
    for (const a of agents) a.destroy();
  }
  return `requests per process (busiest/other), three pools: ${splits.join(', ')}`;
};

export async function connectionsBench({ seconds = 6 } = {}) {
  for (const [policy, label] of [
    ['rr', 'round-robin through the primary (the default)'],
    ['none', 'each process accepts its own (NODE_CLUSTER_SCHED_POLICY=none)'],
  ]) {
    line(`connection per request, ${label}`, await serve(policy, connectionPerRequest(seconds)));
    line(`keep-alive pool opened at low load, ${label}`, await serve(policy, keepAlivePools));
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(`machine: ${machine()}`);
  console.log(`runtime: Node ${process.version}`);
  await connectionsBench();
}
