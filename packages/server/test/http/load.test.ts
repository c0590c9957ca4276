// What one client may hold of a server process (#29 rows 1, 5, 6): a limiter that cannot decide
// refuses; connections per address are capped; a client that pipelines and never reads is cut
// off by the pipelining bound or the send deadline, its answers never piling up; and a large
// inclusion body is read by the verification pool, never on the event loop.
import { connect, type Socket } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  createApp,
  ensureKeys,
  inlineExecutor,
  loadConfig,
  MAX_PIPELINED,
  normalInclusionRequest,
  pinnedKeys,
  startServer,
  WorkerPool,
  type AppRequest,
  type Running,
} from '../../src/internal.js';
import { namesFor } from '@svc/core';
import { seedKeys } from '../support/keys.js';

const dirs: string[] = [];
const running: Running[] = [];
afterAll(async () => {
  for (const r of running) await r.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function serve(env: Record<string, string>, lines?: Array<Record<string, unknown>>): Promise<Running & { port: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-load-'));
  dirs.push(dir);
  const cfg = loadConfig({ SVC_DATA_DIR: dir, PORT: '0', SVC_LOG: '0', SVC_WORKERS: '1', SVC_PROCESSES: '1', ...env });
  const r = await startServer(cfg, { ...(lines ? { log: (event, fields) => void lines.push({ event, ...fields }) } : {}) });
  running.push(r);
  return { ...r, port: Number(new URL(r.url).port) };
}

function open(port: number, localAddress: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = connect({ port, host: '127.0.0.1', localAddress }, () => resolve(s));
    s.on('error', reject);
  });
}
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
/** Heap in use after a full collection, MB. */
const heapMb = () => {
  gc();
  return process.memoryUsage().heapUsed / 1e6;
};
/** One GET /healthz on a connection: 'answered' with a 200, 'closed' when the server closes it first. */
function answers(s: Socket): Promise<'answered' | 'closed'> {
  return new Promise((resolve) => {
    if (s.destroyed) return resolve('closed');
    let data = '';
    s.on('error', () => {});
    s.on('data', (c) => {
      data += c;
      if (data.startsWith('HTTP/1.1 200')) resolve('answered');
    });
    s.once('close', () => resolve('closed'));
    s.write('GET /healthz HTTP/1.1\r\nhost: x\r\n\r\n');
  });
}
const closed = (s: Socket) => new Promise<void>((r) => (s.destroyed ? r() : s.once('close', () => r())));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function req(over: Partial<AppRequest> = {}): AppRequest {
  return {
    method: 'POST',
    path: '/api/v1/verify',
    query: new URLSearchParams(),
    headers: {},
    ip: '192.0.2.9',
    body: async () => new TextEncoder().encode('{}'),
    ...over,
  };
}

describe('one client against one server process', () => {
  it('a limiter that cannot decide refuses with 503 and Retry-After, never lets the request through', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-load-'));
    dirs.push(dir);
    seedKeys(dir);
    const cfg = loadConfig({ SVC_DATA_DIR: dir, SVC_LOG: '0' });
    const ring = ensureKeys(cfg, () => {});
    const names = namesFor('svc');
    let ran = 0;
    const executor = inlineExecutor({ service: 'svc', trustedKeys: pinnedKeys(ring, names, false) });
    const app = createApp({
      cfg,
      names,
      ring,
      executor: { run: (t) => (ran++, executor.run(t)), close: async () => {} },
      council: { health: async () => null },
      ledger: null,
      log: () => {},
      version: 'test',
      limit: () => null,
    });
    const res = await app.handle(req());
    expect(res.status).toBe(503);
    expect(res.headers?.['retry-after']).toBe('1');
    expect(ran).toBe(0);
  });

  it('connections per address are capped; another address is still served', async () => {
    const s = await serve({ SVC_CONNECTIONS_PER_IP: '8' });
    // Each connection asks once: one the server took answers, one past the cap is closed unanswered
    // (events, never a delay a busy machine can outrun).
    const socks = await Promise.all(Array.from({ length: 12 }, () => open(s.port, '127.0.0.7')));
    const first = await Promise.all(socks.map(answers));
    expect(first.filter((a) => a === 'closed')).toHaveLength(4);
    expect(first.filter((a) => a === 'answered')).toHaveLength(8);
    const other = await fetch(`${s.url}/healthz`);
    expect(other.status).toBe(200);
    await Promise.all(socks.map((x) => (x.destroy(), closed(x))));
    // Closed connections give their places back: once the server has seen the closes, 8 are
    // taken again (tried until then, within one generous deadline).
    const deadline = performance.now() + 30_000;
    let again: string[] = [];
    for (;;) {
      const next = await Promise.all(Array.from({ length: 8 }, () => open(s.port, '127.0.0.7')));
      again = await Promise.all(next.map(answers));
      await Promise.all(next.map((x) => (x.destroy(), closed(x))));
      if (again.every((a) => a === 'answered') || performance.now() > deadline) break;
      await sleep(50);
    }
    expect(again).toEqual(Array(8).fill('answered'));
  });

  it('100 connections each pipelining 1,000 requests and never reading: each is closed within the send deadline, and at most the bound of answers is made per connection', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const s = await serve({ SVC_SEND_SECONDS: '1', SVC_CONNECTIONS_PER_IP: '0', SVC_LOG: '1' }, lines);
    const burst = 'GET /healthz HTTP/1.1\r\nhost: x\r\n\r\n'.repeat(1000);
    const before = heapMb();
    const socks = await Promise.all(Array.from({ length: 100 }, (_, i) => open(s.port, `127.0.1.${1 + (i % 200)}`)));
    for (const x of socks) {
      x.pause(); // never read
      x.on('error', () => {});
      x.write(burst);
    }
    const started = performance.now();
    const bystander = await fetch(`${s.url}/healthz`);
    expect(bystander.status).toBe(200);
    await Promise.all(socks.map(closed));
    // Within the send deadline (1 s) plus the keep-alive and a margin, whichever ended each one.
    expect(performance.now() - started).toBeLessThan(10_000);
    const answered = lines.filter((l) => l.event === 'request').length;
    // Without the bound: up to 100,000 answers made and held. With it: the answers the socket took
    // before it filled, then at most MAX_PIPELINED more per connection.
    expect(answered).toBeLessThan(100 * 1000);
    const heldPerConnection = lines.filter((l) => l.event === 'send_timeout').map((l) => l.queued as number);
    for (const q of heldPerConnection) expect(q).toBeLessThan(4 * 1024 * 1024);
    expect(MAX_PIPELINED).toBeLessThanOrEqual(32);
    // Memory returned once they are closed: before, the send deadline's timers held every cut
    // connection's parsed requests (about 2 KB each, 220 MB a wave) until they fired.
    await sleep(200);
    expect(heapMb() - before).toBeLessThan(40);
  }, 30_000);

  it('an inclusion body is reduced to its normal form by the pool: a 70,000-member object runs on a worker, never inline', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-load-'));
    dirs.push(dir);
    const pool = WorkerPool.create(1, { service: 'svc', trustedKeys: [] }, { inlineMaxCost: 4 }, () => {}) as WorkerPool;
    try {
      const members = Array.from({ length: 70_000 }, (_, i) => `"m${i}":0`).join(',');
      const big = new TextEncoder().encode(`{"answer":"Paris",${members}}`);
      const before = pool.stats().inlined;
      const r = await pool.run({ op: 'inclusion', body: big });
      expect(r.ok).toBe(true);
      expect(JSON.parse((r as { json: string }).json)).toEqual(normalInclusionRequest({ answer: 'Paris' }));
      expect(pool.stats().inlined).toBe(before);
      // A small one runs inline, with the same answer and the same refusals.
      const small = await pool.run({ op: 'inclusion', body: new TextEncoder().encode('{"answer":"Paris","tree_size":"x"}') });
      expect(JSON.parse((small as { json: string }).json)).toEqual({
        answer_sha256: normalInclusionRequest({ answer: 'Paris' }).answer_sha256,
        tree_size: 0,
      });
      const bad = await pool.run({ op: 'inclusion', body: new TextEncoder().encode('{"answer":"a","leaf":"b"}') });
      expect(bad).toMatchObject({ ok: false, code: 'invalid_request' });
      const dup = await pool.run({ op: 'inclusion', body: new TextEncoder().encode('{"answer":"a","answer":"b"}') });
      expect(dup).toMatchObject({ ok: false, code: 'invalid_json' });
    } finally {
      await pool.close();
    }
  });
});
