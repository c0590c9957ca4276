// The OpenAI-compatible front against a real upstream: an HTTP server this test starts, speaking the
// chat-completions wire format, plain and streamed, and failing in the ways upstreams fail (slow,
// 500, oversized, not JSON, cut mid-stream, tool calls). What comes back is the upstream's answer
// unchanged plus a proof bundle that verifies; a failure yields an error and no signature (the log
// does not grow).
import type { ServerResponse } from 'node:http';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { questionOf } from '../../src/internal.js';
import { asKind } from '@svc/core/testing';
import { call } from '../support/harness.js';
import { issuingServer, post, upstreamServer, verdictOf, type IssuingServer } from './support.js';

const ANSWER = 'The capital of France is Paris.';
const completion = (content: unknown, model = 'up-model-1') => ({
  id: 'chatcmpl-1',
  object: 'chat.completion',
  created: 1767225600,
  model,
  choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 5, completion_tokens: 7, total_tokens: 12 },
});
const PIECES = ['The capital', ' of France', ' is Paris', '.'];
const chunk = (delta: unknown, extra: object = {}) =>
  `data: ${JSON.stringify({ id: 'chatcmpl-2', object: 'chat.completion.chunk', created: 1767225600, model: 'up-model-1', choices: [{ index: 0, delta, finish_reason: null }], ...extra })}\n\n`;

let upstream: Awaited<ReturnType<typeof upstreamServer>>;
let upBase = '';
const seen: { path: string; body: any; auth?: string }[] = [];

function sse(res: ServerResponse, events: string[], end = true) {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  for (const e of events) res.write(e);
  if (end) res.end();
}

beforeAll(async () => {
  upstream = await upstreamServer((req, body, res) => {
    const mode = req.url!.split('/')[1]!;
    seen.push({ path: req.url!, body, ...(req.headers.authorization ? { auth: req.headers.authorization } : {}) });
    if (mode === 'plain') {
      if (body.stream)
        return sse(res, [
          chunk({ role: 'assistant', content: '' }),
          ...PIECES.map((p) => chunk({ content: p })),
          chunk({}, { choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }),
          'data: [DONE]\n\n',
        ]);
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(JSON.stringify(completion(ANSWER)));
    }
    if (mode === 'crlf')
      return sse(res, [
        ...PIECES.map((p) => chunk({ content: p }).replace(/\n\n$/, '\r\n\r\n')),
        chunk({}, { choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }).replace(/\n\n$/, '\r\n\r\n'),
        'data: [DONE]\r\n\r\n',
      ]);
    if (mode === 'slow') return setTimeout(() => res.end(JSON.stringify(completion(ANSWER))), 20_000).unref();
    if (mode === 'fail') {
      res.writeHead(500, { 'content-type': 'application/json' });
      return res.end('{"error":{"message":"overloaded"}}');
    }
    if (mode === 'oversized') {
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(JSON.stringify(completion('x'.repeat(5 * 1024 * 1024))));
    }
    if (mode === 'malformed') {
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end('{"choices": [');
    }
    if (mode === 'toolcall') {
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(JSON.stringify(completion(null)));
    }
    if (mode === 'cut') return sse(res, [chunk({ content: 'The capital' })]);
    if (mode === 'badevent') return sse(res, [chunk({ content: 'The capital' }), 'data: {not json\n\n', 'data: [DONE]\n\n']);
    if (mode === 'errorevent')
      return sse(res, [chunk({ content: 'The' }), `data: ${JSON.stringify({ error: { message: 'boom' } })}\n\n`, 'data: [DONE]\n\n']);
    if (mode === 'twochoices')
      return sse(res, [
        chunk({ content: 'a' }),
        `data: ${JSON.stringify({ choices: [{ index: 1, delta: { content: 'b' } }] })}\n\n`,
        'data: [DONE]\n\n',
      ]);
    if (mode === 'streamhang') return sse(res, [chunk({ content: 'The' })], false);
    if (mode === 'replay')
      return sse(res, [
        chunk({ content: 'The' }),
        `data: ${JSON.stringify({ svc_proof: { answer: 'another answer' } })}\n\n`,
        'data: [DONE]\n\n',
      ]);
    if (mode === 'replayplain') {
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(JSON.stringify({ ...completion(ANSWER), svc_proof: { answer: 'another answer' } }));
    }
    res.writeHead(404).end();
  });
  upBase = upstream.base;
}, 30_000);

let s: IssuingServer;
const MODES = [
  'plain',
  'crlf',
  'slow',
  'fail',
  'oversized',
  'malformed',
  'toolcall',
  'cut',
  'badevent',
  'errorevent',
  'twochoices',
  'streamhang',
  'replay',
  'replayplain',
];
beforeAll(async () => {
  s = await issuingServer({
    env: { SVC_UPSTREAM_SECONDS: '3', SVC_RATE_ISSUE: '0', SEAT_KEY: 'sk-upstream-secret' },
    council: { seats: MODES.map((m) => ({ id: m, label: m, model: `${m}-model`, endpoint: `${upBase}/${m}/v1`, key_env: 'SEAT_KEY' })) },
  });
}, 60_000);
afterAll(async () => {
  await s?.stop();
  await upstream?.close();
});

const chat = (body: object) => post(`${s.issueUrl}/v1/chat/completions`, body, s.tokens.app);
const size = async () => {
  const n = (await call(s.url, '/api/transparency/ledger')).body.tree_size;
  expect(Number.isSafeInteger(n)).toBe(true);
  return n as number;
};
const user = (content: unknown) => ({ role: 'user', content });

/** The events of a server-sent stream, as data strings. */
const events = (text: string) =>
  text
    .split(/\r?\n\r?\n/)
    .filter(Boolean)
    .map((e) =>
      e
        .split(/\r?\n/)
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).trim())
        .join('\n'),
    );

describe('plain completions', () => {
  it("the upstream's answer comes back unchanged, with a proof that verifies over exactly its text", async () => {
    const r = await chat({ model: 'plain', messages: [user('Capital of France?')], temperature: 0 });
    expect(r.status).toBe(200);
    const { svc_proof: proof, ...rest } = r.body;
    expect(rest).toEqual(completion(ANSWER));
    expect(proof.answer).toBe(ANSWER);
    const v = await verdictOf(s.dir, proof);
    expect(v.verdict.overallOk).toBe(true);
    expect(v.signerRecognized).toBe(true);
    const receipt = asKind(v, 'proof').verdict.receipt;
    expect(receipt.councilGrounded).toBe(false);
    expect(receipt.questionBinding).toBe('entire-input');
    expect(proof.prompt).toBe('Capital of France?');
    expect(proof.receipt.model).toBe('up-model-1');
    // The upstream got the request as sent, under the seat's model and its key.
    const last = seen[seen.length - 1]!;
    expect(last.body).toMatchObject({ model: 'plain-model', temperature: 0, messages: [user('Capital of France?')] });
    expect(last.auth).toBe('Bearer sk-upstream-secret');
    expect((await call(s.url, '/api/transparency/ledger/inclusion', { json: { answer: ANSWER } })).body.found).toBe(true);
  });

  it('a system prompt and earlier turns bind the question as current-message, with its framing signed', async () => {
    const r = await chat({
      model: 'plain-model',
      messages: [
        { role: 'system', content: 'Be brief.' },
        user('Hi'),
        { role: 'assistant', content: 'Hello' },
        user([
          { type: 'text', text: 'Capital of France?' },
          { type: 'image_url', image_url: { url: 'data:,' } },
        ]),
      ],
    });
    expect(r.status).toBe(200);
    const v = await verdictOf(s.dir, r.body.svc_proof);
    expect(v.verdict.overallOk).toBe(true);
    expect(asKind(v, 'proof').verdict.receipt.questionBinding).toBe('current-message');
    expect(asKind(v, 'proof').verdict.receipt.framing).toMatchObject({ ok: true, persona: 1, attachment: 1, historyTurns: 2 });
  });

  it('a conversation ending with a tool result binds no question', async () => {
    const r = await chat({
      model: 'plain',
      messages: [user('Hi'), { role: 'assistant', content: null, tool_calls: [] }, { role: 'tool', tool_call_id: 'c1', content: '18C' }],
    });
    expect(r.status).toBe(200);
    expect(r.body.svc_proof.prompt).toBeUndefined();
    expect((await verdictOf(s.dir, r.body.svc_proof)).verdict.overallOk).toBe(true);
  });

  it('property: the question is the last user message; framing is given exactly when something came with it', () => {
    const msg = fc.record({ role: fc.constantFrom('system', 'developer', 'user', 'assistant', 'tool'), content: fc.string() });
    fc.assert(
      fc.property(fc.array(msg, { maxLength: 6 }), fc.string(), (earlier, q) => {
        const got = questionOf([...earlier, { role: 'user', content: q }])!;
        expect(got.prompt).toBe(q);
        expect(got.framing === undefined).toBe(earlier.length === 0);
        if (got.framing) {
          expect(got.framing.persona).toBe(earlier.some((m) => m.role === 'system' || m.role === 'developer') ? 1 : 0);
          expect(got.framing.history_turns).toBe(earlier.filter((m) => m.role !== 'system' && m.role !== 'developer').length);
        }
      }),
    );
  });
});

describe('streamed completions', () => {
  for (const mode of ['plain', 'crlf'])
    it(`${mode}: the upstream's events unchanged, then one event with the proof, then [DONE]`, async () => {
      const r = await chat({ model: mode, stream: true, messages: [user('Capital of France?')] });
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toMatch(/^text\/event-stream/);
      const ev = events(r.text);
      expect(ev[ev.length - 1]).toBe('[DONE]');
      const last = JSON.parse(ev[ev.length - 2]!);
      // The proof rides a chunk the clients' loops read as an empty delta of choice 0.
      expect(last.choices).toEqual([{ index: 0, delta: {}, finish_reason: null }]);
      expect(last.object).toBe('chat.completion.chunk');
      const proof = last.svc_proof;
      const deltas = ev.slice(0, -2).map((e) => JSON.parse(e).choices[0].delta.content ?? '');
      expect(deltas.join('')).toBe(ANSWER);
      expect(proof.answer).toBe(ANSWER);
      expect((await verdictOf(s.dir, proof)).verdict.overallOk).toBe(true);
    });
});

describe('an upstream failure never yields a signature', () => {
  const failures: [string, boolean, number][] = [
    ['fail', false, 502],
    ['slow', false, 504],
    ['oversized', false, 502],
    ['malformed', false, 502],
    ['toolcall', false, 502],
    ['replayplain', false, 502],
    ['fail', true, 502],
  ];
  for (const [mode, stream, status] of failures)
    it(`${mode}${stream ? ' (streamed)' : ''}: ${status}, the log does not grow`, async () => {
      const before = await size();
      const r = await chat({ model: mode, stream, messages: [user('q')] });
      expect(r.status).toBe(status);
      // OpenAI's error shape, which its SDKs read into their error classes.
      expect(r.body.error).toMatchObject({ code: status === 504 ? 'gateway_timeout' : 'bad_gateway', type: 'upstream_error', param: null });
      expect(typeof r.body.error.message).toBe('string');
      expect(r.text).not.toContain('svc_proof');
      expect(await size()).toBe(before);
    });

  for (const mode of ['cut', 'badevent', 'errorevent', 'twochoices', 'streamhang', 'replay'])
    it(`streamed ${mode}: an error event, no proof, no [DONE], the log does not grow`, async () => {
      const before = await size();
      const r = await chat({ model: mode, stream: true, messages: [user('q')] });
      expect(r.status).toBe(200);
      const ev = events(r.text);
      expect(ev).not.toContain('[DONE]');
      expect(r.text).not.toContain('svc_proof');
      expect(JSON.parse(ev[ev.length - 1]!).error.message).toMatch(/nothing was signed/);
      expect(await size()).toBe(before);
    });

  it('requests the front cannot serve: 4xx before any upstream call', async () => {
    const calls = seen.length;
    for (const body of [
      { model: 'nobody', messages: [user('q')] },
      { model: 'plain', messages: [] },
      { model: 'plain', messages: [user('q')], n: 2 },
      { messages: [user('q')] },
      { model: 'plain', messages: [user('q')], stream: 'yes' },
    ]) {
      const refused = await chat(body);
      expect(refused.status).toBe(422);
      expect(refused.body.error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_request' });
    }
    const unauth = await post(`${s.issueUrl}/v1/chat/completions`, { model: 'plain', messages: [user('q')] });
    expect(unauth.status).toBe(401);
    expect(unauth.body.error).toMatchObject({ type: 'authentication_error', code: 'unauthorized' });
    expect(seen.length).toBe(calls);
  });
});
