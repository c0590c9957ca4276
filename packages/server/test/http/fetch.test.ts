// The apps as `fetch(Request) -> Response` (#54 part 4): the public app answers a Request in
// process as it answers the same request over its socket; the issuing app authenticates the same
// way; hostile requests (an oversized or broken body, a target that is not one path form, bytes
// that are not UTF-8) get the status node:http gives them and never a throw or a 5xx; a streamed answer
// stops its maker when the reader cancels.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueProof } from '@svc/core/issue';
import { testKeys } from '@svc/core/testing';
import { fetchHandler, issuingApp } from '../../src/internal.js';
import { boot, type Booted } from '../support/harness.js';

let s: Booted;
beforeAll(async () => {
  s = await boot();
});
afterAll(() => s.stop());

const at = (path: string, init?: RequestInit) => new Request(`http://svc.test${path}`, init);
const proof = JSON.stringify(issueProof({ answer: 'Paris.', model: 'm', ts: 1 }, { receipt: testKeys('fetch').answer }));

describe('the public app as fetch(Request) -> Response', () => {
  it('answers as the socket does: status, content type and body, for reads, a verification, refusals and CORS', async () => {
    const cases: [string, RequestInit?][] = [
      ['/healthz'],
      ['/api/provenance/pubkey'],
      ['/api/v1/verify', { method: 'POST', body: proof, headers: { 'content-type': 'application/json' } }],
      ['/api/v1/verify', { method: 'POST', body: '{', headers: { 'content-type': 'application/json' } }],
      ['/no/such/endpoint'],
      ['/healthz', { method: 'DELETE' }],
      ['/healthz', { method: 'HEAD' }],
      ['/api/v1/verify', { method: 'OPTIONS' }],
      ['/api/transparency/ledger?x=1&x=2'],
    ];
    for (const [path, init] of cases) {
      const local = await s.app.fetch(at(path, init));
      const remote = await fetch(`${s.url}${path}`, init);
      const what = `${init?.method ?? 'GET'} ${path}`;
      expect(local.status, what).toBe(remote.status);
      expect(local.headers.get('content-type'), what).toBe(remote.headers.get('content-type'));
      expect(local.headers.get('x-content-type-options'), what).toBe('nosniff');
      expect(local.headers.get('access-control-allow-origin'), what).toBe(remote.headers.get('access-control-allow-origin'));
      expect(local.headers.get('allow'), what).toBe(remote.headers.get('allow'));
      const [a, b] = [await local.text(), await remote.text()];
      // A verdict names the time it was made; everything else is the same bytes.
      if (path === '/api/v1/verify' && local.status === 200) expect(JSON.parse(a).verdict).toEqual(JSON.parse(b).verdict);
      else expect(a, what).toBe(b);
    }
  });

  it('a request id given is echoed, one not given is made', async () => {
    expect((await s.app.fetch(at('/healthz', { headers: { 'x-request-id': 'abc-123' } }))).headers.get('x-request-id')).toBe('abc-123');
    expect((await s.app.fetch(at('/healthz'))).headers.get('x-request-id')).toMatch(/^[\w-]{8,}$/);
  });

  it('a body over 2 MB is 413, declared or streamed; a body cut off is 400; neither is read past the bound', async () => {
    const big = new Uint8Array(2 * 1024 * 1024 + 1).fill(0x20);
    const declared = await s.app.fetch(at('/api/v1/verify', { method: 'POST', body: big }));
    expect(declared.status).toBe(413);
    expect((await declared.json()).code).toBe('too_large');
    let pulled = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(c) {
        pulled += 65536;
        c.enqueue(new Uint8Array(65536).fill(0x20));
      },
    });
    const streamed = await s.app.fetch(at('/api/v1/verify', { method: 'POST', body: endless, duplex: 'half' } as RequestInit));
    expect(streamed.status).toBe(413);
    expect(pulled).toBeLessThan(4 * 1024 * 1024);
    const broken = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(new TextEncoder().encode('{"answer":'));
        c.error(new Error('connection reset'));
      },
    });
    const cut = await s.app.fetch(at('/api/v1/verify', { method: 'POST', body: broken, duplex: 'half' } as RequestInit));
    // As over node:http: the request is malformed in its body (422), not in its target.
    expect(cut.status).toBe(422);
    expect((await cut.json()).code).toBe('invalid_request');
  });

  it('a target that is not one path form is 400, a query that is not UTF-8 422, as over the socket', async () => {
    for (const [path, status] of [
      ['/api/v1%2fverify', 400],
      ['/healthz?q=%FF', 422],
      ['/healthz?%C0%AF=1', 422],
    ] as const) {
      const r = await s.app.fetch(at(path));
      expect(r.status, path).toBe(status);
      expect((await fetch(`${s.url}${path}`)).status, path).toBe(status);
      expect((await r.json()).code, path).toBe('invalid_request');
    }
  });

  it('any method, target and headers: an answer below 500, never a throw (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('GET', 'POST', 'HEAD', 'OPTIONS', 'PUT', 'DELETE', 'PATCH'),
        fc.webPath(),
        fc.webQueryParameters(),
        fc.dictionary(fc.constantFrom('content-type', 'x-forwarded-for', 'accept', 'content-encoding', 'x-request-id'), fc.string()),
        fc.option(fc.uint8Array({ maxLength: 512 }), { nil: undefined }),
        async (method, path, query, headers, body) => {
          let req: Request;
          try {
            req = at(`${path.startsWith('/') ? path : `/${path}`}?${query}`, {
              method,
              headers,
              ...(body && method !== 'GET' && method !== 'HEAD' ? { body } : {}),
            });
          } catch {
            return; // not a request a runtime could hand over
          }
          const r = await s.app.fetch(req);
          expect(r.status).toBeGreaterThanOrEqual(200);
          expect(r.status).toBeLessThan(500);
          await r.arrayBuffer();
        },
      ),
      { numRuns: 150, seed: 54 },
    );
  });
});

describe('the issuing app as fetch(Request) -> Response', () => {
  const app = issuingApp({
    issue: async (inputs) => inputs.map((i) => issueProof({ answer: i.answer, model: 'm', ts: 1 }, { receipt: testKeys('fetch').answer })),
    kinds: {
      issueTranscript: () => Promise.reject(new Error('unused')),
      issueRun: () => Promise.reject(new Error('unused')),
      issueExport: () => Promise.reject(new Error('unused')),
    },
    tokens: { match: (t: string) => (t === 'svc_issue_good' ? 'alice' : null) },
    ledger: false,
    service: 'svc',
    perMinute: 0,
    upstreams: { seat: () => null },
    log: () => {},
  });
  const issue = (headers: Record<string, string>) =>
    app.fetch(
      at('/api/v1/issue', { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: '{"answer":"Yes."}' }),
    );

  it('signs for a good token, refuses none or an unknown one with 401 and its challenge', async () => {
    const ok = await issue({ authorization: 'Bearer svc_issue_good' });
    expect(ok.status).toBe(200);
    expect((await ok.json()).answer).toBe('Yes.');
    for (const h of [{}, { authorization: 'Bearer svc_issue_bad' }, { authorization: 'Basic abc' }] as Record<string, string>[]) {
      const r = await issue(h);
      expect(r.status).toBe(401);
      expect(r.headers.get('www-authenticate')).toBe('Bearer realm="svc-issue"');
    }
    // Two Authorization headers (a Request joins them with ", "): refused, never one of them read.
    const twice = await app.fetch(
      at('/api/v1/issue', {
        method: 'POST',
        headers: [
          ['authorization', 'Bearer svc_issue_good'],
          ['authorization', 'Bearer svc_issue_good'],
          ['content-type', 'application/json'],
        ],
        body: '{"answer":"Yes."}',
      }),
    );
    expect(twice.status).toBe(401);
  });
});

describe('a streamed answer through fetch', () => {
  it('arrives chunk by chunk; a reader that cancels stops the maker', async () => {
    let stopped = false;
    const handler = fetchHandler(
      async () => ({
        status: 200,
        headers: { 'content-type': 'text/event-stream' },
        stream: async function* (closed: AbortSignal) {
          closed.addEventListener('abort', () => {
            stopped = true;
          });
          for (let i = 0; !closed.aborted; i++) yield `data: ${i}\n\n`;
        },
      }),
      { log: () => {} },
    );
    const res = await handler(at('/events'));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const reader = res.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    const second = new TextDecoder().decode((await reader.read()).value);
    expect([first, second]).toEqual(['data: 0\n\n', 'data: 1\n\n']);
    await reader.cancel();
    expect(stopped).toBe(true);
  });

  it('a handler that throws is its error answer, not a rejection', async () => {
    const handler = fetchHandler(
      async () => {
        throw new Error('boom');
      },
      { log: () => {} },
    );
    const res = await handler(at('/x'));
    expect(res.status).toBe(500);
    expect(await res.json()).toMatchObject({ error: 'internal error', code: 'internal' });
  });
});
