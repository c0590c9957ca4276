// The one HTTP pipeline (#32): every error answer comes from errorResponse; a fault of the server
// (a worker task that throws a plain Error, a handler bug) is 500 `internal` naming the request id
// its log lines carry, never a 4xx that blames the client; the metrics listener and the
// standalone witness answer refusals in the same form as svc serve.
import { createServer } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { namesFor } from '@svc/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CouncilProbe,
  WorkerPool,
  createApp,
  createPipeline,
  ensureKeys,
  jsonLogger,
  listen,
  loadConfig,
  metricsListener,
  nodeHandler,
  withRequestId,
  type AppRequest,
} from '../../src/internal.js';
import { seedKeys } from '../support/keys.js';

const script = new URL('../fixtures/hostile-worker.mjs', import.meta.url);
const names = namesFor('svc');
let dir: string;
let pool: WorkerPool;
const lines: Record<string, unknown>[] = [];
const log = jsonLogger('info', (l) => lines.push(JSON.parse(l)));

function req(method: string, path: string, body = ''): AppRequest {
  const bytes = new TextEncoder().encode(body);
  return { method, path, query: new URLSearchParams(), headers: {}, ip: '192.0.2.9', body: async () => bytes };
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-pipeline-'));
  // Every task goes to the hostile worker, whose task named 'throw' throws a plain Error.
  pool = new WorkerPool(1, { service: 'svc', trustedKeys: [] }, script, { inlineMaxCost: 0 });
});
afterAll(async () => {
  await pool.close();
  rmSync(dir, { recursive: true, force: true });
});

function app() {
  seedKeys(dir);
  const cfg = loadConfig({ SVC_DATA_DIR: dir, SVC_LOG: '0' });
  const ring = ensureKeys(cfg, () => {});
  const council = new CouncilProbe(
    () => null,
    {},
    () => {},
  );
  return createApp({ cfg, names, ring, executor: pool, council, ledger: null, log, version: '0.0.0-test' });
}

describe('one error boundary', () => {
  it('a worker task that throws a plain Error is 500 internal with the request id, logged under that id', async () => {
    lines.length = 0;
    const res = await withRequestId('req-boom-1', () => app().handle(req('POST', '/api/v1/verify', 'throw')));
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ error: 'internal error', code: 'internal', request_id: 'req-boom-1' });
    expect(res.headers?.['cache-control']).toBe('no-store');
    const logged = lines.find((l) => l.event === 'internal_error');
    expect(logged).toMatchObject({ req_id: 'req-boom-1', path: '/api/v1/verify', level: 'error' });
    expect(String(logged?.error)).toContain('boom');
    // The same worker answers the next task: one fault costs one request.
    expect((await app().handle(req('POST', '/api/v1/verify', 'ok'))).status).toBe(200);
  });

  it('a handler that throws is 500 internal; refusals keep their status, code and headers', async () => {
    const { handle } = createPipeline({
      routes: [
        { method: 'GET', path: '/bug', group: 'none', run: async () => JSON.parse('{') },
        { method: 'GET', path: '/t/{name}', group: 'none', run: async (_r, p) => ({ status: 200, body: { name: p.name } }) },
      ],
      log,
      limit: (r) => (r.ip === 'limited' ? 7 : r.ip === 'undecided' ? null : 0),
    });
    const bug = await handle(req('GET', '/bug'));
    expect([bug.status, (bug.body as { code: string }).code]).toEqual([500, 'internal']);
    expect(await handle(req('GET', '/t/x'))).toMatchObject({ status: 200, body: { name: 'x' } });
    const post = await handle(req('POST', '/t/x'));
    expect([post.status, post.headers?.allow, post.body]).toEqual([
      405,
      'GET, HEAD',
      { error: 'POST is not allowed on /t/x', code: 'method_not_allowed' },
    ]);
    const missing = await handle(req('GET', '/nope'));
    expect([missing.status, (missing.body as { code: string }).code]).toEqual([404, 'not_found']);
    const limited = await handle({ ...req('GET', '/t/x'), ip: 'limited' });
    expect([limited.status, limited.headers?.['retry-after']]).toEqual([429, '7']);
    const undecided = await handle({ ...req('GET', '/t/x'), ip: 'undecided' });
    expect([undecided.status, undecided.headers?.['retry-after']]).toEqual([503, '1']);
    // No CORS asked for, none sent, and no preflight answered.
    expect(bug.headers?.['access-control-allow-origin']).toBeUndefined();
  });

  it('through node:http, the body names the id the X-Request-Id header carries', async () => {
    const server = createServer(nodeHandler(app().handle, { log, trustedProxies: [] }));
    const url = await listen(server, '127.0.0.1', 0);
    try {
      const r = await fetch(`${url}/api/v1/verify`, { method: 'POST', body: 'throw', headers: { 'x-request-id': 'client-7' } });
      expect(r.status).toBe(500);
      expect(r.headers.get('x-request-id')).toBe('client-7');
      expect(await r.json()).toEqual({ error: 'internal error', code: 'internal', request_id: 'client-7' });
    } finally {
      server.close();
    }
  });

  it('the metrics listener refuses in the same form: 404 and 405 as JSON, 503 with Retry-After when the scrape fails', async () => {
    let fail = false;
    const { server, url } = await metricsListener(
      { host: '127.0.0.1', port: 0 },
      async () => {
        if (fail) throw new Error('registry gone');
        return { body: 'up 1\n', contentType: 'text/plain' };
      },
      log,
    );
    try {
      expect(await (await fetch(url)).text()).toBe('up 1\n');
      const other = await fetch(url.replace(/metrics$/, 'api/v1/verify'));
      expect([other.status, (await other.json()).code]).toEqual([404, 'not_found']);
      const post = await fetch(url, { method: 'POST', body: 'x' });
      expect([post.status, post.headers.get('allow'), (await post.json()).code]).toEqual([405, 'GET, HEAD', 'method_not_allowed']);
      fail = true;
      const down = await fetch(url);
      expect([down.status, down.headers.get('retry-after'), (await down.json()).code]).toEqual([503, '1', 'unavailable']);
    } finally {
      server.close();
    }
  });
});
