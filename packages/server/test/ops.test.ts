// What an operator probes and scrapes: /healthz, /readyz (not ready while the ledger is withheld
// or its database is down, ready again after), and /metrics, parsed by a Prometheus text-format
// parser and changing as requests are made.
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { afterAll, describe, expect, it } from 'vitest';
import { startPostgres } from '@svc/tools/postgres';
import { loadConfig } from '../src/internal.js';
import { boot, call, type Booted } from './support/harness.js';
import { runs } from '@svc/tools/system';

const booted: Booted[] = [];
afterAll(async () => {
  for (const b of booted) await b.stop();
});

async function metrics(url: string): Promise<Map<string, any>> {
  const r = await fetch(`${url}/metrics`);
  expect(r.status).toBe(200);
  expect(r.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return new Map((parsePrometheusTextFormat(await r.text()) as any[]).map((f) => [f.name, f]));
}

const sample = (family: any, labels: Record<string, string>): number => {
  const m = family?.metrics.find((x: any) => Object.entries(labels).every(([k, v]) => x.labels?.[k] === v));
  return m ? Number(m.value ?? m.count) : 0;
};

describe('health and readiness', () => {
  it('healthz is 200; readyz is ready, then not while the ledger is withheld, then ready again', async () => {
    const s = await boot({ rate: { verify: 0, read: 0, modelKeys: 0, tiles: 0 } });
    booted.push(s);
    expect((await call(s.url, '/healthz')).body).toEqual({ ok: true });
    let r = await call(s.url, '/readyz');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ ready: true, checks: { keys: 'ok', ledger: 'ok (0 leaves)' } });
    expect(r.body.checks.workers).toBe('ok (2, started by the first verification)');
    // A high-water mark above the log: a rollback, so the head is withheld.
    const hw = join(s.dir, 'keys', 'high-water.json');
    writeFileSync(hw, JSON.stringify({ tree_size: 9, root_hash: 'ab'.repeat(32) }));
    r = await call(s.url, '/readyz');
    expect(r.status).toBe(503);
    expect(r.body).toMatchObject({ ready: false, reasons: ['ledger: withheld (rollback)'] });
    expect(r.headers.get('cache-control')).toBe('no-store');
    rmSync(hw);
    writeFileSync(hw, JSON.stringify({ tree_size: 0, root_hash: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855' }));
    r = await call(s.url, '/readyz');
    expect(r.status, JSON.stringify(r.body)).toBe(200);
  });

  it.runIf(runs('postgres'))(
    'not ready while its PostgreSQL database is down, ready again when it is back',
    async () => {
      const pg = await startPostgres();
      try {
        const s = await boot({ databaseUrl: pg.url });
        booted.push(s);
        expect((await call(s.url, '/readyz')).status).toBe(200);
        pg.pause();
        const down = await call(s.url, '/readyz');
        expect(down.status).toBe(503);
        expect(down.body.reasons[0]).toMatch(/^ledger: /);
        // Liveness does not depend on the database.
        expect((await call(s.url, '/healthz')).status).toBe(200);
        pg.resume();
        let up = await call(s.url, '/readyz');
        for (let i = 0; i < 100 && up.status !== 200; i++) {
          await new Promise((r) => setTimeout(r, 100));
          up = await call(s.url, '/readyz');
        }
        expect(up.status, JSON.stringify(up.body)).toBe(200);
      } finally {
        pg.stop();
      }
    },
    120_000,
  );
});

describe('metrics', () => {
  it('are Prometheus text that a parser reads, and change as requests are made', async () => {
    const s = await boot({ rate: { verify: 0, read: 2, modelKeys: 0, tiles: 0 } });
    booted.push(s);
    const before = await metrics(s.url);
    const reqs = (m: Map<string, any>, route: string, status: string) => sample(m.get('svc_http_requests_total'), { route, status });
    const base = reqs(before, '/api/provenance/pubkey', '200');
    for (let i = 0; i < 3; i++) await call(s.url, '/api/provenance/pubkey'); // the third is over the limit of 2
    await call(s.url, '/no/such/path');
    await call(s.url, '/api/transparency/tlog/tile/0/000');
    const after = await metrics(s.url);
    expect(reqs(after, '/api/provenance/pubkey', '200')).toBe(base + 2);
    expect(reqs(after, '/api/provenance/pubkey', '429')).toBe(1);
    expect(sample(after.get('svc_rate_limited_total'), { route: '/api/provenance/pubkey' })).toBe(1);
    // Unknown paths and parameters never become labels of their own.
    expect(reqs(after, 'unmatched', '404')).toBe(1);
    expect(reqs(after, '/api/transparency/tlog/tile/{tile}', '404')).toBe(1);
    expect(after.get('svc_http_request_duration_seconds').type).toBe('HISTOGRAM');
    expect(sample(after.get('svc_ledger_tree_size'), {})).toBe(0);
    expect(sample(after.get('svc_ledger_withheld'), { reason: 'rollback' })).toBe(0);
    // No verification yet, so no worker thread: they start with the first task that needs one.
    expect(sample(after.get('svc_verify_queue'), { state: 'workers' })).toBe(0);
    // Five signatures by estimate: past the inline bound on every runtime, so it goes to a worker.
    const costly = { sig: 'a', b: { sig: 'b' }, c: { sig: 'c' }, d: { sig: 'd' }, e: { sig: 'e' } };
    expect((await call(s.url, '/api/v1/verify', { json: costly })).status).toBeLessThan(500);
    expect(sample((await metrics(s.url)).get('svc_verify_queue'), { state: 'workers' })).toBe(2);
    expect(after.has('svc_process_cpu_seconds_total')).toBe(true);
    expect(sample(after.get('svc_events_total'), { event: 'worker_exit' })).toBe(0);
  });

  it('SVC_METRICS_LISTEN: metrics on a listener of their own, and 404 on the public port', async () => {
    const s = await boot({ metricsListen: { host: '127.0.0.1', port: 0 } });
    booted.push(s);
    expect(s.metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    expect((await call(s.url, '/metrics')).status).toBe(404);
    const m = await metrics(s.metricsUrl!.replace(/\/metrics$/, ''));
    expect(m.has('svc_http_requests_total')).toBe(true);
    expect((await fetch(s.metricsUrl!.replace(/\/metrics$/, '/api/v1/verify'))).status).toBe(404);
    expect(() => loadConfig({ SVC_METRICS_LISTEN: 'nonsense' })).toThrow(/SVC_METRICS_LISTEN must be host:port/);
    expect(loadConfig({ SVC_METRICS_LISTEN: '[::1]:9464' }).metricsListen).toEqual({ host: '::1', port: 9464 });
  });

  it('SVC_METRICS=off: /metrics is 404', async () => {
    const s = await boot({ metrics: false });
    booted.push(s);
    expect((await call(s.url, '/metrics')).status).toBe(404);
  });
});
