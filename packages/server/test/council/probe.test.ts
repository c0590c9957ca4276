// The council probe against a real OpenAI-compatible model plane on loopback, started here.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import { CouncilProbe, PROBE_TTL_MS } from '../../src/internal.js';
import { boot, call, expectSchema, schemas } from '../support/harness.js';

let plane: Server;
let planeUrl = '';
let hits = 0;

beforeAll(async () => {
  plane = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      hits++;
      const auth = req.headers.authorization;
      const model = JSON.parse(body || '{}').model;
      if (req.url !== '/v1/chat/completions') return void res.writeHead(404).end();
      if (model === 'slow') return void setTimeout(() => res.writeHead(200).end('{}'), 3000);
      if (auth !== 'Bearer good-key')
        return void res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"secret upstream detail"}');
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ choices: [{ message: { role: 'assistant', content: 'ready' } }] }));
    });
  });
  await new Promise<void>((r) => plane.listen(0, '127.0.0.1', () => r()));
  planeUrl = `http://127.0.0.1:${(plane.address() as { port: number }).port}/v1`;
});
afterAll(() => new Promise<void>((r) => plane.close(() => r())));

const seats = () => ({
  endpoint: planeUrl,
  timeout_ms: 500,
  seats: [
    { id: 'a', label: 'Seat A', model: 'model-a', key_env: 'KEY_A' },
    { id: 'b', label: 'Seat B', model: 'model-b', key_env: 'KEY_B' },
    { id: 'c', label: 'Seat C', model: 'slow', key_env: 'KEY_A' },
    { id: 'd', label: 'Seat D', model: 'model-d', key_env: 'KEY_MISSING' },
  ],
});

describe('GET /api/status/council', () => {
  it('probes keyed seats, reports unkeyed ones without ms, never leaks failure reasons', async () => {
    const s = await boot({}, { KEY_A: 'good-key', KEY_B: 'bad-key' }, seats());
    try {
      const r = await call(s.url, '/api/status/council');
      expect(r.status).toBe(200);
      expectSchema(schemas.CouncilHealth, r.body);
      expect(r.headers.get('cache-control')).toBe('public, max-age=60, s-maxage=60');
      expect(r.body).toMatchObject({ ok: true, defined: 4, configured: 3, working: 1 });
      const by = Object.fromEntries(r.body.seats.map((x: any) => [x.id, x]));
      expect(by.a).toMatchObject({ ok: true, keyed: true, label: 'Seat A', model: 'model-a' });
      expect(by.a.ms).toBeGreaterThanOrEqual(0);
      expect(by.b).toMatchObject({ ok: false, keyed: true });
      expect(by.c).toMatchObject({ ok: false, keyed: true }); // timed out
      expect(by.d).toEqual({ id: 'd', label: 'Seat D', model: 'model-d', ok: false, keyed: false });
      expect(JSON.stringify(r.body)).not.toMatch(/secret upstream detail|401|abort/i);
      expect(new Date(r.body.probed_at).toISOString()).toBe(r.body.probed_at);
    } finally {
      await s.stop();
    }
  });

  it('one probe per five minutes, shared by concurrent callers', async () => {
    let t = 1_000_000;
    const probe = new CouncilProbe(
      () => seats(),
      { KEY_A: 'good-key' },
      () => {},
      () => t,
    );
    const before = hits;
    const all = await Promise.all(Array.from({ length: 10 }, () => probe.health()));
    expect(probe.probes).toBe(1);
    expect(new Set(all.map((x) => x?.probed_at)).size).toBe(1);
    const afterFirst = hits;
    expect(afterFirst - before).toBe(2); // the keyed seats a and c were each asked once
    t += PROBE_TTL_MS - 1;
    await probe.health();
    expect(probe.probes).toBe(1);
    t += 2;
    await probe.health();
    expect(probe.probes).toBe(2);
  });

  it('503 {ok:false}, not cached, when the model plane is not configured or cannot be probed', async () => {
    const none = await boot();
    try {
      const r = await call(none.url, '/api/status/council');
      expect(r.status).toBe(503);
      expect(r.body).toEqual({ ok: false });
      expect(r.headers.get('cache-control')).toBe('no-store');
    } finally {
      await none.stop();
    }
    const down = await boot(
      {},
      { KEY_A: 'good-key' },
      { endpoint: 'http://127.0.0.1:9/v1', timeout_ms: 300, seats: [{ id: 'a', label: 'A', model: 'm', key_env: 'KEY_A' }] },
    );
    try {
      const r = await call(down.url, '/api/status/council');
      expect(r.status).toBe(503);
      expect(r.body).toEqual({ ok: false });
    } finally {
      await down.stop();
    }
  });

  it('says why to the operator, in a log line, never in the public answer', async () => {
    const { CouncilProbe } = await import('../../src/internal.js');
    const cases: Array<[ConstructorParameters<typeof CouncilProbe>[0], NodeJS.ProcessEnv, string]> = [
      [() => null, {}, 'not_configured'],
      [() => ({ seats: [] }), {}, 'no_seats'],
      [
        () => ({ endpoint: 'http://127.0.0.1:9/v1', seats: [{ id: 'a', label: 'A', model: 'm', key_env: 'UNSET_KEY' }] }),
        {},
        'no_keyed_seat',
      ],
      [
        () => ({ endpoint: 'http://127.0.0.1:9/v1', timeout_ms: 300, seats: [{ id: 'a', label: 'A', model: 'm', key_env: 'K' }] }),
        { K: 'k' },
        'no_seat_answered',
      ],
    ];
    for (const [config, env, reason] of cases) {
      const lines: Array<[string, Record<string, unknown>]> = [];
      const probe = new CouncilProbe(config, env, (e, f) => void lines.push([e, f]));
      expect(await probe.health()).toBeNull();
      expect(lines.find(([e]) => e === 'council_unavailable')?.[1], reason).toMatchObject({ reason });
    }
  });
});
