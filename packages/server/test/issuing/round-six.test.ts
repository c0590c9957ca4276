// Round six of hostile input on the issuing side (issue 53): each row's attack, which succeeded
// before its fix and is refused after.
import { spawn } from 'node:child_process';
import { appendFileSync, chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issuingApp, loadConfig, newToken, SignerPool, unsafeTokenFile } from '../../src/internal.js';
import { MAX_QUEUED_PER_OWNER } from '../../src/issuing/signers.js';
import type { AppRequest } from '../../src/http/types.js';
import { rawRequest } from '../support/rawhttp.js';
import { issuingServer, post, type Script, scriptedFront, type IssuingServer, proofVerdictOf } from './support.js';

const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));
let front: Awaited<ReturnType<typeof scriptedFront>>;
let s: IssuingServer;
const seat = (script: Script) => front.seat(script);
beforeAll(async () => {
  front = await scriptedFront(4);
  s = front.s;
}, 60_000);
afterAll(async () => front?.stop());
const port = () => Number(new URL(s.issueUrl).port);
const body = '{"answer":"Paris."}';
const raw = (headers: string[], target = '/api/v1/issue') =>
  rawRequest(port(), [
    `POST ${target} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n${headers.join('\r\n')}\r\n\r\n${body}`,
  ]);

describe('row 1: two Authorization headers are refused, whichever is valid', () => {
  it('valid first, other second; other first, valid second: 401 both ways', async () => {
    const valid = `Authorization: Bearer ${s.tokens.app}`;
    const other = 'Authorization: Bearer svc_it_someone-else';
    expect((await raw([valid])).status).toBe(200);
    for (const pair of [
      [valid, other],
      [other, valid],
      [valid, valid],
    ]) {
      const r = await raw(pair);
      expect(r.status, pair.join(' | ')).toBe(401);
      expect(r.text).toMatch(/send one Authorization header/);
    }
  });
});

describe('row 2: a token in the URL is refused under any name', () => {
  for (const name of ['api-key', 'x-api-key', 'access-token', 'auth_token', 'bearer_token', 'jwt', 'secret', 'openai_api_key', 'q'])
    it(`?${name}=<token>: 401, the token said to be exposed`, async () => {
      const r = await raw([`Authorization: Bearer ${s.tokens.app}`], `/api/v1/issue?${name}=${encodeURIComponent(s.tokens.app!)}`);
      expect(r.status).toBe(401);
      expect(r.text).toMatch(/never in the URL/);
    });
  it('a value that only looks like a token of ours is refused too; other queries are not', async () => {
    expect((await raw([`Authorization: Bearer ${s.tokens.app}`], '/api/v1/issue?note=svc_it_x')).status).toBe(401);
    expect((await raw([`Authorization: Bearer ${s.tokens.app}`], '/api/v1/issue?note=hello')).status).toBe(200);
  });
});

describe('row 3: a token file others may write admits nobody', () => {
  it('chmod 666 and an appended line: the appended token and the old one are both refused, and it is logged', async () => {
    const file = join(s.dir, 'issue-tokens');
    expect(unsafeTokenFile(file)).toBeNull();
    chmodSync(file, 0o666);
    try {
      expect(unsafeTokenFile(file)).toMatch(/writable by group or others \(mode 666\)/);
      const { token, line } = newToken('intruder');
      appendFileSync(file, `${line}\n`);
      let status = 0;
      // The file is read again when it changes: wait for that read, then ask.
      for (let i = 0; i < 300 && !s.lines.some((l) => l.event === 'issue_tokens_unsafe'); i++) {
        status = (await post(`${s.issueUrl}/api/v1/issue`, { answer: 'x' }, token)).status;
        if (status === 401 && s.lines.some((l) => l.event === 'issue_tokens_unsafe')) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      expect(s.lines.some((l) => l.event === 'issue_tokens_unsafe')).toBe(true);
      expect((await post(`${s.issueUrl}/api/v1/issue`, { answer: 'x' }, token)).status).toBe(401);
      expect((await post(`${s.issueUrl}/api/v1/issue`, { answer: 'x' }, s.tokens.app)).status).toBe(401);
      // Made safe again by chmod alone (no edit): the file is read again at once.
      chmodSync(file, 0o600);
      expect((await post(`${s.issueUrl}/api/v1/issue`, { answer: 'x' }, s.tokens.app)).status).toBe(200);
    } finally {
      chmodSync(file, 0o600);
    }
  });

  it('a folder others may write is unsafe too, unless it is sticky', () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-tokdir-'));
    const file = join(dir, 'issue-tokens');
    writeFileSync(file, '', { mode: 0o600 });
    chmodSync(dir, 0o777);
    expect(unsafeTokenFile(file)).toMatch(/its folder is writable/);
    chmodSync(dir, 0o1777);
    expect(unsafeTokenFile(file)).toBeNull();
    chmodSync(dir, 0o700);
  });
});

describe('row 4: svc issue --jsonl reads the answer object as the API does', () => {
  it('a repeated member (also spelt with an escape) stops the run with exit 2 naming the line', async () => {
    for (const line of ['{"answer":"A","answer":"B"}', '{"answer":"A","\\u0061nswer":"B"}']) {
      const r = await new Promise<{ code: number | null; err: string; out: string }>((ok) => {
        const c = spawn(process.execPath, [CLI, 'issue', '--jsonl'], { env: { ...process.env, SVC_DATA_DIR: s.dir, SVC_LOG: '0' } });
        let err = '';
        let out = '';
        c.stdout.on('data', (d) => (out += d));
        c.stderr.on('data', (d) => (err += d));
        c.on('close', (code) => ok({ code, err, out }));
        c.stdin.end(`{"answer":"fine"}\n${line}\n`);
      });
      expect(r.code, r.err).toBe(2);
      expect(r.err).toMatch(/line 2: .*repeated/);
      expect(r.out).not.toContain('"B"');
    }
  }, 60_000);
});

describe('row 5: a lone surrogate in any signed member is a clear refusal', () => {
  for (const member of ['model', 'governance_flag'])
    it(`${member}: 422 naming it, on one answer and in a batch`, async () => {
      const one = `{"answer":"a","${member}":"\\ud800"}`;
      const r = await post(`${s.issueUrl}/api/v1/issue`, one, s.tokens.app);
      expect(r.status).toBe(422);
      expect(r.body.error).toMatch(new RegExp(`${member} is not valid Unicode`));
      const b = await post(`${s.issueUrl}/api/v1/issue/batch`, `{"answers":[{"answer":"ok"},${one}]}`, s.tokens.app);
      expect(b.status).toBe(422);
      expect(b.body.error).toMatch(/answers\[1\]/);
    });

  it('an upstream naming its model with one: 502 from the front, plain and streamed', async () => {
    const completion = `{"choices":[{"index":0,"message":{"role":"assistant","content":"Paris."},"finish_reason":"stop"}],"model":"\\ud800"}`;
    const plain = await post(
      `${s.issueUrl}/v1/chat/completions`,
      { model: seat({ json: JSON.parse(completion) }), messages: [{ role: 'user', content: 'q' }] },
      s.tokens.app,
    );
    expect(plain.status).toBe(502);
    expect(plain.body.error.message).toMatch(/model in text that is not valid Unicode/);
    const chunk = `{"choices":[{"index":0,"delta":{"content":"Paris."},"finish_reason":"stop"}],"model":"\\ud800"}`;
    const streamed = await post(
      `${s.issueUrl}/v1/chat/completions`,
      { model: seat({ stream: [`data: ${chunk}\n\ndata: [DONE]\n\n`] }), stream: true, messages: [{ role: 'user', content: 'q' }] },
      s.tokens.app,
    );
    expect(streamed.text).toMatch(/model in text that is not valid Unicode: nothing was signed/);
    expect(streamed.text).not.toContain('svc_proof');
  });
});

describe('row 6: issuing never claims a council nobody stated', () => {
  it('absent: the receipt says council_grounded false; true only when the caller says so', async () => {
    const absent = await post(`${s.issueUrl}/api/v1/issue`, { answer: 'Paris.' }, s.tokens.app);
    expect(absent.body.receipt.council_grounded).toBe(false);
    expect((await proofVerdictOf(s.dir, absent.body)).receipt.councilGrounded).toBe(false);
    const said = await post(`${s.issueUrl}/api/v1/issue`, { answer: 'Paris.', council_grounded: true }, s.tokens.app);
    expect((await proofVerdictOf(s.dir, said.body)).receipt.councilGrounded).toBe(true);
  });
});

describe('row 7: the per-token limit counts answers, not requests', () => {
  it('with 10 a minute, a batch of 8 passes, a batch of 3 more is refused, and so is a batch of 11', async () => {
    const limited = await issuingServer({ env: { SVC_RATE_ISSUE: '10' } });
    try {
      const batch = (n: number) =>
        post(
          `${limited.issueUrl}/api/v1/issue/batch`,
          { answers: Array.from({ length: n }, (_, i) => ({ answer: `a${i}` })) },
          limited.tokens.app,
        );
      const too = await batch(11);
      expect(too.status).toBe(429);
      // The refused batch spent its one request; 9 are left this minute.
      expect((await batch(8)).status).toBe(200);
      const over = await batch(3);
      expect(over.status).toBe(429);
      expect(over.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(over.body.error).toMatch(/over its 10 a minute/);
    } finally {
      await limited.stop();
    }
  });
});

describe("row 7: one token's waiting answers are bounded, over HTTP", () => {
  it('past 4,096 waiting the next batch is 429 with Retry-After and nothing signed; another token is served', async () => {
    const pool = new SignerPool(1, { dataDir: s.dir, service: 'svc', slhDiversity: false, bridge: true }, () => {});
    const signed: string[] = [];
    const app = issuingApp({
      issue: async (inputs, owner) => {
        const bundles = await pool.sign(inputs, owner);
        signed.push(...bundles.map((b) => b.answer));
        return bundles;
      },
      kinds: {
        issueTranscript: () => Promise.reject(new Error('unused')),
        issueRun: () => Promise.reject(new Error('unused')),
        issueExport: () => Promise.reject(new Error('unused')),
      },
      tokens: { match: (t: string) => ({ 'token-g': 'greedy', 'token-o': 'other' })[t] ?? null },
      ledger: false,
      service: 'svc',
      perMinute: 0,
      upstreams: { seat: () => null },
      log: () => {},
    });
    const request = (token: string, answers: string[]): AppRequest => ({
      method: 'POST',
      path: '/api/v1/issue/batch',
      query: new URLSearchParams(),
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      ip: '127.0.0.1',
      body: async () => new TextEncoder().encode(JSON.stringify({ answers: answers.map((answer) => ({ answer })) })),
    });
    const batch = (k: number) => Array.from({ length: 256 }, (_, i) => `greedy ${k}.${i}`);
    // 16 batches of 256 fill the token's share of the queue (less what the thread already took).
    const held = Array.from({ length: MAX_QUEUED_PER_OWNER / 256 }, (_, k) => app.handle(request('token-g', batch(k))));
    await new Promise((r) => setTimeout(r, 50));
    const refused = await app.handle(request('token-g', batch(99)));
    expect(refused.status).toBe(429);
    expect(refused.headers?.['retry-after']).toBe('1');
    expect(JSON.stringify(refused.body)).toMatch(/nothing was signed/);
    const other = await app.handle(request('token-o', ['the other token']));
    expect(other.status).toBe(200);
    await pool.close();
    await Promise.allSettled(held);
    expect(signed).toContain('the other token');
    expect(signed.filter((a) => a.startsWith('greedy 99.'))).toEqual([]);
  }, 120_000);
});

describe('row 9: half a TLS configuration names what is missing', () => {
  it('a certificate without its key, and a key without its certificate', () => {
    const cert = join(s.dir, 'cert.pem');
    writeFileSync(cert, 'x');
    const base = { SVC_DATA_DIR: s.dir, SVC_ISSUE_LISTEN: '127.0.0.1:0' };
    expect(() => loadConfig({ ...base, SVC_ISSUE_TLS_CERT: cert })).toThrow(/SVC_ISSUE_TLS_KEY is not set/);
    expect(() => loadConfig({ ...base, SVC_ISSUE_TLS_KEY: cert })).toThrow(/SVC_ISSUE_TLS_CERT is not set/);
    expect(() => loadConfig({ ...base, SVC_ISSUE_TLS_CERT: cert, SVC_ISSUE_TLS_KEY: s.dir })).toThrow(
      /SVC_ISSUE_TLS_KEY must name a PEM file/,
    );
  });
});
