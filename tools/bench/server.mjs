// Server benchmark: verify endpoint throughput on loopback (autocannon, rate limits off) as a
// ratio to the single-core raw ML-DSA-87 verify rate, and GET pubkey p99 latency under that load.
import { onNode24 } from '../lib/node24.mjs';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { Issuer, Keyring, ensureKeys, loadConfig } from '../../packages/server/dist/internal.js';
import { namesFor } from '@svc/core';
import { line, percentiles, sampleLatency } from './util.mjs';

// The server and its SQLite need Node 24: run again on it when this Node is older.
onNode24();

const CLI = fileURLToPath(new URL('../../packages/server/dist/cli.js', import.meta.url));

async function startChild(dir, port, extra = {}) {
  const child = spawn(process.execPath, [CLI, 'serve'], {
    env: {
      ...process.env,
      ...extra,
      SVC_DATA_DIR: dir,
      PORT: String(port),
      SVC_RATE_VERIFY: '0',
      SVC_RATE_READ: '0',
      SVC_RATE_MODEL_KEYS: '0',
      SVC_LOG: '0',
      SVC_LEDGER: '0',
    },
    stdio: 'ignore',
  });
  for (let i = 0; i < 100; i++) {
    try {
      await fetch(`http://127.0.0.1:${port}/api/provenance/pubkey`);
      return child;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  child.kill();
  throw new Error('server did not start');
}

export async function serverBench(rawMs, { rawLabel = 'raw ML-DSA-87 verifies/s on one core (baseline)', goal = '>= 1.8', env = {} } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-'));
  const cfg = loadConfig({ SVC_DATA_DIR: dir });
  const ring = ensureKeys(cfg, () => {});
  const bundle = await new Issuer(Keyring.load(join(dir, 'keys')).ring ?? ring, namesFor('svc'), null, { bridge: false }).issue({
    answer: 'Benchmark answer. '.repeat(10),
  });
  const port = 18000 + Math.floor(Math.random() * 1000);
  const child = await startChild(dir, port, env);
  const base = `http://127.0.0.1:${port}`;
  try {
    // Warm up the worker pool.
    await autocannon({
      url: `${base}/api/v1/verify`,
      method: 'POST',
      body: JSON.stringify(bundle),
      headers: { 'content-type': 'application/json' },
      connections: 4,
      duration: 2,
    });
    const reader = sampleLatency(`${base}/api/provenance/pubkey`);
    const result = await autocannon({
      url: `${base}/api/v1/verify`,
      method: 'POST',
      body: JSON.stringify(bundle),
      headers: { 'content-type': 'application/json' },
      connections: 6,
      duration: 10,
    });
    const latencies = await reader.stop();
    const rps = result.requests.average;
    const rawRate = 1000 / rawMs;
    line(rawLabel, rawRate.toFixed(1));
    line('POST /api/v1/verify requests/s (6 connections, 10 s)', rps.toFixed(1));
    line('ratio endpoint throughput / raw single-core rate', (rps / rawRate).toFixed(2), goal);
    line('errors + non-2xx', String(result.errors + result.non2xx + result.timeouts), '0');
    const p = percentiles(latencies);
    line(
      `GET /api/provenance/pubkey p50 / p99 under load (${latencies.length} samples)`,
      `${p.p50.toFixed(2)} ms / ${p.p99.toFixed(2)} ms`,
      'p99 < 20 ms',
    );
    return { rps };
  } finally {
    child.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  }
}
