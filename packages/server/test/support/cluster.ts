// `svc serve` as a cluster in a process group of its own, its JSON log lines readable as they come,
// and a request on a fresh connection (so the cluster may hand it to any process).
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { freePort } from './harness.js';
import { CLI } from './svc-cli.js';
import { seedKeys } from './keys.js';
import { afterThisFile } from './lifecycle.js';

export interface Cluster {
  base: string;
  port: number;
  child: ChildProcess;
  lines: () => Array<Record<string, any>>;
  exited: Promise<number | null>;
  waitFor: (pred: (l: Record<string, any>) => boolean, what: string) => Promise<Record<string, any>>;
}

export async function serveCluster(env: Record<string, string>, opts: { port?: number; waitListening?: boolean } = {}): Promise<Cluster> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-cluster-'));
  seedKeys(dir);
  if (env.COUNCIL) writeFileSync(join(dir, 'council.json'), env.COUNCIL);
  const port = opts.port ?? (await freePort());
  // Its own process group, as a terminal's foreground job is: a group signal reaches every process.
  const child = spawn(process.execPath, [CLI, 'serve'], {
    env: { ...process.env, SVC_DATA_DIR: dir, PORT: String(port), SVC_PROCESSES: '2', SVC_WORKERS: '1', ...env },
    detached: true,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  // A cluster that outlives its file (a test timed out before stopping it) is killed after it.
  afterThisFile(() => {
    try {
      if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // the group is gone
    }
  });
  let out = '';
  child.stdout!.on('data', (c) => (out += c));
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  const lines = () =>
    out
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l));
  const waitFor = async (pred: (l: Record<string, any>) => boolean, what: string) => {
    for (let i = 0; i < 300; i++) {
      const hit = lines().find(pred);
      if (hit) return hit;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`no log line: ${what}\n${out}`);
  };
  const base = `http://127.0.0.1:${port}`;
  await waitFor((l) => l.event === 'cluster_started', 'cluster_started');
  if (opts.waitListening !== false)
    await waitFor((l) => l.event === 'listening' && lines().filter((x) => x.event === 'listening').length >= 2, 'two listening');
  return { base, port, child, lines, exited, waitFor };
}

/** One request on a connection of its own, so the cluster may hand it to any process. */
export function fresh(
  url: string,
  opts: { localAddress?: string; method?: string; body?: string; timeoutMs?: number } = {},
): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        agent: false,
        method: opts.method ?? (opts.body !== undefined ? 'POST' : 'GET'),
        headers: { connection: 'close', ...(opts.body !== undefined ? { 'content-type': 'application/json' } : {}) },
        ...(opts.localAddress ? { localAddress: opts.localAddress } : {}),
        ...(opts.timeoutMs ? { timeout: opts.timeoutMs } : {}),
      },
      (res) => {
        let body = '';
        res.on('data', (c) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', reject);
    req.end(opts.body);
  });
}

export function counterSum(text: string, name: string, labels: Record<string, string> = {}): number {
  const fam = (parsePrometheusTextFormat(text) as any[]).find((f) => f.name === name);
  if (!fam) return Number.NaN;
  return fam.metrics
    .filter((m: any) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v))
    .reduce((a: number, m: any) => a + Number(m.value), 0);
}
