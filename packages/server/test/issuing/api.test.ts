// The private issuing listener: tokens (none, wrong, revoked, rotated, in the URL), a rate limit per
// token, the routes never on the public port, hostile bodies with their documented statuses, and
// bundles that verify and are in the log.
import { request } from 'node:http';
import { connect } from 'node:net';
import { join } from 'node:path';
import fc from 'fast-check';
import { Value } from 'typebox/value';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addToken, IssueRequest, MAX_BATCH, revokeToken, ROUTES } from '../../src/internal.js';
import { asKind } from '@svc/core/testing';
import { call } from '../support/harness.js';
import { issuingServer, post, verdictOf, type IssuingServer } from './support.js';

let s: IssuingServer;
beforeAll(async () => {
  s = await issuingServer({ tokens: ['app', 'batch-job'], env: { SVC_RATE_ISSUE: '0' } });
}, 60_000);
afterAll(() => s?.stop());

const issue = (body: unknown, token: string | undefined = s.tokens.app) => post(`${s.issueUrl}/api/v1/issue`, body, token);

describe('bearer tokens', () => {
  it('no token, a malformed header, a wrong token: 401 with WWW-Authenticate, and nothing is signed', async () => {
    const before = (await call(s.url, '/api/transparency/ledger')).body.tree_size;
    const tries: Record<string, string>[] = [
      {},
      { authorization: 'Basic YTpi' },
      { authorization: 'Bearer' },
      { authorization: `Bearer ${s.tokens.app}x` },
      { authorization: `Bearer ${s.tokens.app!.slice(0, -1)}` },
    ];
    for (const headers of tries) {
      const r = await post(`${s.issueUrl}/api/v1/issue`, { answer: 'refused' }, undefined, headers);
      expect(r.status).toBe(401);
      expect(r.body.code).toBe('unauthorized');
      expect(r.headers.get('www-authenticate')).toBe('Bearer realm="svc-issue"');
    }
    const after = (await call(s.url, '/api/transparency/ledger')).body.tree_size;
    expect(Number.isSafeInteger(before)).toBe(true);
    expect(after).toBe(before);
  });

  it('a valid token in the query string is refused (it is exposed), with or without the header', async () => {
    for (const k of ['token', 'access_token', 'api_key']) {
      const r = await post(`${s.issueUrl}/api/v1/issue?${k}=${s.tokens.app}`, { answer: 'x' });
      expect(r.status).toBe(401);
      expect(r.body.error).toMatch(/never in the URL/);
      expect((await post(`${s.issueUrl}/api/v1/issue?${k}=${s.tokens.app}`, { answer: 'x' }, s.tokens.app)).status).toBe(401);
    }
  });

  it('rotation: two names at once both issue; a revoked one is refused from its next request; a new one works at once', async () => {
    expect((await issue({ answer: 'by app' })).status).toBe(200);
    expect((await issue({ answer: 'by batch-job' }, s.tokens['batch-job'])).status).toBe(200);
    expect(revokeToken(join(s.dir, 'issue-tokens'), 'batch-job')).toBe(true);
    expect((await issue({ answer: 'revoked' }, s.tokens['batch-job'])).status).toBe(401);
    const fresh = addToken(join(s.dir, 'issue-tokens'), 'next');
    expect((await issue({ answer: 'by next' }, fresh)).status).toBe(200);
    expect((await issue({ answer: 'still app' })).status).toBe(200);
  });

  it('log lines name the token, never carry it', async () => {
    await issue({ answer: 'logged by name' });
    const issuing = s.lines.filter((l) => l.event === 'request' && String(l.path).startsWith('/api/v1/issue') && l.status === 200);
    expect(issuing.length).toBeGreaterThan(0);
    for (const l of issuing) expect(['app', 'batch-job', 'next']).toContain(l.token);
    expect(issuing.some((l) => l.token === 'app')).toBe(true);
    const all = JSON.stringify(s.lines);
    for (const t of Object.values(s.tokens)) expect(all).not.toContain(t);
  });
});

describe('routes', () => {
  it('the issuing routes are not on the public port (404), and the public routes are unchanged', async () => {
    for (const p of ['/api/v1/issue', '/api/v1/issue/batch', '/v1/chat/completions'])
      expect((await post(`${s.url}${p}`, { answer: 'x' }, s.tokens.app)).status).toBe(404);
    expect(ROUTES.some((r) => r.path.includes('/issue') || r.path.includes('chat/completions'))).toBe(false);
    expect((await call(s.url, '/api/provenance/pubkey')).status).toBe(200);
    // ...and the public routes are not on the private listener.
    expect((await post(`${s.issueUrl}/api/v1/verify`, {}, s.tokens.app)).status).toBe(404);
  });

  it('one answer: a bundle that verifies under the pinned keys and is in the log', async () => {
    const r = await issue({
      answer: 'Paris is the capital of France.',
      prompt: 'Capital of France?',
      model: 'gpt-test',
      envelopes: ['jws', 'cose'],
    });
    expect(r.status).toBe(200);
    const v = await verdictOf(s.dir, r.body);
    expect(v.verdict.overallOk).toBe(true);
    expect(v.signerRecognized).toBe(true);
    expect(asKind(v, 'proof').verdict.receipt.questionBinding).toBe('entire-input');
    expect(r.body.receipt.model).toBe('gpt-test');
    expect(Object.keys(r.body.receipt.envelopes).sort()).toEqual(['cose', 'jws']);
    const inc = await call(s.url, '/api/transparency/ledger/inclusion', { json: { answer: 'Paris is the capital of France.' } });
    expect(inc.body.found).toBe(true);
  });

  it('a batch: every answer signed, in order, each at its own index, all or nothing', async () => {
    const answers = Array.from({ length: 20 }, (_, i) => ({ answer: `batch answer ${i} ${Math.random()}` }));
    const r = await post(`${s.issueUrl}/api/v1/issue/batch`, { answers }, s.tokens.app);
    expect(r.status).toBe(200);
    expect(r.body.bundles.map((b: any) => b.answer)).toEqual(answers.map((a) => a.answer));
    const indexes = new Set<number>();
    for (const [i, b] of r.body.bundles.entries()) {
      expect((await verdictOf(s.dir, b)).verdict.overallOk).toBe(true);
      const inc = await call(s.url, '/api/transparency/ledger/inclusion', { json: { answer: answers[i]!.answer } });
      indexes.add(inc.body.index);
    }
    expect(indexes.size).toBe(answers.length);
    // One bad item refuses the whole batch: none of the good ones is logged.
    const bad = await post(
      `${s.issueUrl}/api/v1/issue/batch`,
      { answers: [{ answer: 'good one never logged' }, { answer: 7 }] },
      s.tokens.app,
    );
    expect(bad.status).toBe(422);
    expect(bad.body.error).toMatch(/answers\[1\]|\/answers\/1/);
    expect((await call(s.url, '/api/transparency/ledger/inclusion', { json: { answer: 'good one never logged' } })).body.found).toBe(false);
  });

  it('its own OpenAPI document describes every route and the answer object the routes check', async () => {
    const doc = (await call(s.issueUrl, '/api/v1/issue/openapi.json')).body;
    expect(Object.keys(doc.paths).sort()).toEqual([
      '/api/v1/issue',
      '/api/v1/issue/batch',
      '/api/v1/issue/export',
      '/api/v1/issue/openapi.json',
      '/api/v1/issue/run',
      '/api/v1/issue/transcript',
      '/v1/chat/completions',
      '/v1/responses',
    ]);
    expect(doc.components.securitySchemes.bearer.scheme).toBe('bearer');
    expect(doc.paths['/api/v1/issue'].post.responses['401']).toBeDefined();
    fc.assert(
      fc.property(
        fc.record({ answer: fc.string(), model: fc.string({ minLength: 1, maxLength: 20 }) }, { requiredKeys: ['answer'] }),
        (a) => Value.Check(IssueRequest, a),
      ),
    );
  });
});

describe('hostile input on the private listener: documented statuses, never a 5xx', () => {
  const cases: [string, string | unknown, number][] = [
    ['not JSON', '{"answer":', 400],
    ['not UTF-8', '\xff\xfe', 400],
    ['a repeated member', '{"answer":"a","answer":"b"}', 400],
    ['not an object', '[1,2]', 422],
    ['no answer', {}, 422],
    ['an unknown member', { answer: 'a', answr: 'b' }, 422],
    ['a number for the answer', { answer: 1 }, 422],
    ['a lone surrogate', '{"answer":"\\ud800"}', 422],
    ['framing without a question', { answer: 'a', framing: { persona: 1, voice: 0, attachment: 0, history_turns: 0 } }, 422],
    ['an unknown envelope', { answer: 'a', envelopes: ['pgp'] }, 422],
    ['deep nesting', `{"answer":"a","model":${'['.repeat(5000)}${']'.repeat(5000)}}`, 422],
    ['an answer over the limit', { answer: 'x'.repeat(256 * 1024 + 1) }, 422],
  ];
  for (const [what, body, status] of cases)
    it(`${what}: ${status}`, async () => {
      const r = await issue(body);
      expect(r.status).toBe(status);
      expect(typeof r.body.code).toBe('string');
    });

  it('batches: empty, one over the bound, not an array: 422', async () => {
    for (const answers of [[], Array.from({ length: MAX_BATCH + 1 }, () => ({ answer: 'a' })), { answer: 'a' }])
      expect((await post(`${s.issueUrl}/api/v1/issue/batch`, { answers }, s.tokens.app)).status).toBe(422);
  });

  it('a body over 2 MB: 413, and the listener goes on', async () => {
    const r = await issue({ answer: 'x'.repeat(2 * 1024 * 1024 + 10) });
    expect(r.status).toBe(413);
    expect((await issue({ answer: 'after the big one' })).status).toBe(200);
  });

  it('a truncated upload (the client goes away mid-body) signs nothing and the listener goes on', async () => {
    const url = new URL(`${s.issueUrl}/api/v1/issue`);
    await new Promise<void>((done) => {
      const req = request({
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        headers: { authorization: `Bearer ${s.tokens.app}`, 'content-length': '1000' },
      });
      req.on('error', () => done());
      req.write('{"answer":"truncated upload"');
      setTimeout(() => {
        req.destroy();
        done();
      }, 50);
    });
    expect((await issue({ answer: 'after truncation' })).status).toBe(200);
    expect((await call(s.url, '/api/transparency/ledger/inclusion', { json: { answer: 'truncated upload' } })).body.found).toBe(false);
  });

  it('any JSON value as the body: an answer, a 4xx, never a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue({ maxDepth: 4 }), async (v) => {
        const r = await issue(JSON.stringify(v));
        expect(r.status === 200 || (r.status >= 400 && r.status < 500)).toBe(true);
      }),
      { numRuns: 40 },
    );
  });
});

describe('a slow upload on the private listener', () => {
  it('a body that stalls past SVC_BODY_SECONDS is cut with 408, signs nothing, and the listener goes on', async () => {
    const t = await issuingServer({ env: { SVC_BODY_SECONDS: '1' } });
    try {
      const port = Number(new URL(t.issueUrl).port);
      const answer = await new Promise<string>((done) => {
        const sock = connect(port, '127.0.0.1', () => {
          sock.write(
            `POST /api/v1/issue HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t.tokens.app}\r\nContent-Length: 100\r\n\r\n{"answer":"slow`,
          );
        });
        let text = '';
        sock.on('data', (c) => (text += c.toString('latin1')));
        sock.on('error', () => undefined);
        sock.on('close', () => done(text));
      });
      expect(answer).toMatch(/^HTTP\/1\.1 408/);
      expect((await post(`${t.issueUrl}/api/v1/issue`, { answer: 'after the slow one' }, t.tokens.app)).status).toBe(200);
      expect((await call(t.url, '/api/transparency/ledger/inclusion', { json: { answer: 'slow' } })).body.found).toBe(false);
    } finally {
      await t.stop();
    }
  }, 60_000);
});

describe('a rate limit per token', () => {
  it('past SVC_RATE_ISSUE a token gets 429 with Retry-After; another token is not held back', async () => {
    const t = await issuingServer({ tokens: ['a', 'b'], env: { SVC_RATE_ISSUE: '2' } });
    try {
      expect((await post(`${t.issueUrl}/api/v1/issue`, { answer: '1' }, t.tokens.a)).status).toBe(200);
      expect((await post(`${t.issueUrl}/api/v1/issue`, { answer: '2' }, t.tokens.a)).status).toBe(200);
      const third = await post(`${t.issueUrl}/api/v1/issue`, { answer: '3' }, t.tokens.a);
      expect(third.status).toBe(429);
      expect(Number(third.headers.get('retry-after'))).toBeGreaterThan(0);
      expect((await post(`${t.issueUrl}/api/v1/issue`, { answer: '4' }, t.tokens.b)).status).toBe(200);
      // A refused token does not spend the limit of a valid one.
      for (let i = 0; i < 3; i++) expect((await post(`${t.issueUrl}/api/v1/issue`, { answer: 'x' }, 'wrong')).status).toBe(401);
      expect((await post(`${t.issueUrl}/api/v1/issue`, { answer: '5' }, t.tokens.b)).status).toBe(200);
    } finally {
      await t.stop();
    }
  }, 60_000);
});
