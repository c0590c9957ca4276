// Hostile clients over real sockets: malformed targets, replies that cannot cross threads, deep
// nesting, overload, oversized uploads, HEAD. After each, the server still answers, never a 5xx.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueProof, issueRun, issueTranscript } from '@svc/core/issue';
import { seededRandom, testKeys } from '@svc/core/testing';
import { boot, call, type Booted } from '../support/harness.js';
import { rawRequest } from '../support/rawhttp.js';

const K = testKeys('hostile');
let s: Booted;
let port: number;
beforeAll(async () => {
  s = await boot({ rate: { verify: 0, read: 0, modelKeys: 0, tiles: 0 } });
  port = Number(new URL(s.url).port);
});
afterAll(() => s.stop());

const plain = issueProof({ answer: 'hello', model: 'm', ts: 1_700_000_000 }, { receipt: K.answer });
async function stillServes() {
  const r = await call(s.url, '/api/v1/verify', { json: plain });
  expect(r.status).toBe(200);
  expect(r.body.verdict.overallOk).toBe(true);
}

function deep(n: number): unknown {
  let o: Record<string, unknown> = {};
  const root = o;
  for (let i = 0; i < n; i++) o = (o.a = {}) as Record<string, unknown>;
  return root;
}

describe('request targets', () => {
  it.each(['//', '//[', 'http://[', '//a:99999', 'http://a:99999/', '*', 'foo'])('%j is a 400 and the process lives', async (target) => {
    const r = await rawRequest(port, `GET ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
    expect(r.status).toBe(400);
    await stillServes();
  });

  it.each([
    ['/%', 404],
    ['/\u00ff', 400],
    ['/api/cbom/..%2f..', 400],
    ['/api/cbom?%zz=%', 200],
  ])('%j answers %i', async (target, status) => {
    const r = await rawRequest(port, `GET ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
    expect(r.status).toBe(status);
    await stillServes();
  });

  it('an absolute-form target is served like its path', async () => {
    const r = await rawRequest(port, `GET http://example.org/api/cbom HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
    expect(r.status).toBe(200);
  });
});

describe('HEAD', () => {
  it.each(['/api/cbom', '/api/provenance/pubkey', '/api/transparency/ledger', '/openapi.json', '/'])(
    'HEAD %s answers GET headers with no body',
    async (path) => {
      const get = await rawRequest(port, `GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
      const head = await rawRequest(port, `HEAD ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`, { head: true });
      expect(head.status).toBe(get.status);
      const len = (t: string) => /\r\ncontent-length: *(\d+)/i.exec(t)?.[1];
      expect(len(head.text)).toBe(len(get.text));
      expect(head.text.endsWith('\r\n\r\n')).toBe(true);
      expect(/\r\ncontent-type: *([^\r]+)/i.exec(head.text)?.[1]).toBe(/\r\ncontent-type: *([^\r]+)/i.exec(get.text)?.[1]);
    },
  );

  it('HEAD on a POST-only endpoint is a 405 whose Allow names the methods', async () => {
    const r = await fetch(`${s.url}/api/v1/verify`, { method: 'HEAD' });
    expect(r.status).toBe(405);
    const g = await fetch(`${s.url}/api/cbom`, { method: 'DELETE' });
    expect(g.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
  });
});

describe('replies that cannot cross threads, and deep nesting', () => {
  it('run bundles holding objects nested 2,000 deep, one per worker, do not hang later verification', async () => {
    const run = issueRun(
      { goal: 'g', steps: [], budget: { limit: 1, spent: 0 } } as never,
      { model: 'm', ts: 1 },
      { receipt: K.autopilot },
    );
    const hostile = JSON.stringify({ ...run, run: deep(2000) });
    const answers = await Promise.all(
      [1, 2, 3].map(() =>
        call(s.url, '/api/v1/evidence', { method: 'POST', body: hostile, headers: { 'content-type': 'application/json' } }),
      ),
    );
    for (const a of answers) {
      expect(a.status).toBeGreaterThanOrEqual(200);
      expect(a.status).toBeLessThan(500);
    }
    await stillServes();
  });

  it('an unsigned member 100,000 deep: evidence answers 4xx (never 500), verify still gives a verdict', async () => {
    const body = JSON.stringify({ ...plain, extra: 1 }).replace('"extra":1', `"extra":${'['.repeat(100_000)}${']'.repeat(100_000)}`);
    const ev = await call(s.url, '/api/v1/evidence', { method: 'POST', body, headers: { 'content-type': 'application/json' } });
    expect(ev.status).toBe(422);
    expect(ev.body.code).toBe('invalid_request');
    const v = await call(s.url, '/api/v1/verify', { method: 'POST', body, headers: { 'content-type': 'application/json' } });
    expect(v.status).toBe(200);
    await stillServes();
  });
});

describe('413 that clients can read', () => {
  it.each([2 * 1024 * 1024 + 1, 3_000_000, 6_000_000])('fetch uploading %i bytes reads a 413, with Content-Length', async (n) => {
    const r = await fetch(`${s.url}/api/v1/verify`, {
      method: 'POST',
      body: new Uint8Array(n).fill(0x20),
      headers: { 'content-type': 'application/json' },
    });
    expect(r.status).toBe(413);
    expect((await r.json()).code).toBe('too_large');
  });

  it('fetch streaming 3 MB chunked reads a 413', async () => {
    const chunk = new Uint8Array(64 * 1024).fill(0x20);
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(c) {
        if (sent >= 3_000_000) return c.close();
        sent += chunk.length;
        c.enqueue(chunk);
      },
    });
    const r = await fetch(`${s.url}/api/v1/verify`, {
      method: 'POST',
      body,
      duplex: 'half',
      headers: { 'content-type': 'application/json' },
    } as RequestInit);
    expect(r.status).toBe(413);
  });
});

describe('overload', () => {
  it('a flood of maximum transcripts is refused at once with 503 and Retry-After; a normal verify is answered', async () => {
    const t = await boot({ workers: 1, rate: { verify: 0, read: 0, modelKeys: 0, tiles: 0 }, pool: { maxQueuedCost: 300 } });
    try {
      const random = seededRandom('flood');
      const turns = Array.from({ length: 63 }, (_, i) =>
        issueProof(
          { answer: `turn ${i}`, model: 'm', ts: 1 },
          { receipt: K.answer, bridge: { primary: K.bridgePrimary, cosign: K.bridgeCosign }, random },
        ),
      );
      const heavy = JSON.stringify(issueTranscript(turns as never));
      const flood = await Promise.all(
        Array.from({ length: 12 }, () =>
          call(t.url, '/api/v1/verify', { method: 'POST', body: heavy, headers: { 'content-type': 'application/json' } }),
        ),
      );
      const refused = flood.filter((r) => r.status === 503);
      expect(refused.length).toBeGreaterThan(0);
      for (const r of refused) {
        expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
        expect(r.body.code).toBe('unavailable');
      }
      for (const r of flood) expect([200, 503]).toContain(r.status);
      const normal = await call(t.url, '/api/v1/verify', { json: plain });
      expect(normal.status).toBe(200);
    } finally {
      await t.stop();
    }
  });
});

describe('one reading of a request (round three)', () => {
  it.each([
    '/api\\v1\\verify',
    '/api/v1/%2e%2e/v1/verify',
    '/x/../api/v1/verify',
    '/api/v1/./verify',
    '/api/v1%2fverify',
    '/api/v1/verify/.',
  ])('a path that normalises to another, %j, is a 400, never the endpoint', async (target) => {
    const body = JSON.stringify(plain);
    const r = await rawRequest(
      port,
      `POST ${target} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
    );
    expect(r.status).toBe(400);
    await stillServes();
  });

  it('a repeated query key is a 422 naming it, whichever value comes first', async () => {
    for (const q of ['first=1&signed=1&signed=0', 'first=1&signed=0&signed=1', 'first=1&first=1']) {
      const r = await call(s.url, `/api/transparency/ledger/consistency?${q}`);
      expect(r.status).toBe(422);
      expect(r.body.error).toMatch(/given more than once/);
    }
    expect((await call(s.url, '/api/transparency/ledger/consistency?first=1&signed=1')).body.error ?? '').not.toMatch(/more than once/);
  });

  it.each(['%FF', '%C0%AF', '%ED%A0%80', '%E2%82'])(
    'org=%s (not UTF-8) is a 422 naming the parameter, never a record with U+FFFD (#30 row 12)',
    async (bad) => {
      const r = await call(s.url, `/api/v1/evidence?org=${bad}`, { json: plain });
      expect(r.status).toBe(422);
      expect(r.body).toMatchObject({ code: 'invalid_request' });
      expect(r.body.error).toMatch(/query parameter org is not valid UTF-8/);
      // Well-formed UTF-8 (percent-encoded, or a + for a space) is read as sent.
      const ok = await call(s.url, `/api/v1/evidence?org=${encodeURIComponent('Café')}+Org`, { json: plain });
      expect(ok.status).toBe(200);
      expect(JSON.stringify(ok.body)).toContain('Café Org');
    },
  );

  it.each(['gzip, chunked', 'chunked, chunked', 'deflate'])('Transfer-Encoding %j is a 501 and the connection closes', async (te) => {
    const r = await rawRequest(
      port,
      `POST /api/v1/verify HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: ${te}\r\n\r\n2\r\n{}\r\n0\r\n\r\n`,
    );
    if (r.status !== 400) expect(r.status).toBe(501);
    expect(r.text).toMatch(/connection: close/i);
    await stillServes();
  });

  it('a complete POST followed by FIN is answered', async () => {
    const { connect } = await import('node:net');
    const body = JSON.stringify(plain);
    const text = await new Promise<string>((resolve) => {
      let out = '';
      const sock = connect(port, '127.0.0.1', () => {
        sock.end(
          `POST /api/v1/verify HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
        );
      });
      const timer = setTimeout(() => sock.destroy(), 5000);
      sock.on('data', (c) => (out += c.toString('latin1')));
      sock.on('error', () => undefined);
      sock.on('close', () => {
        clearTimeout(timer);
        resolve(out);
      });
    });
    expect(text).toMatch(/^HTTP\/1\.1 200/);
    expect(text).toContain('"overallOk":true');
  });
});
