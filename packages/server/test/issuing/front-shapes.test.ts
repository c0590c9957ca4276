// The front signs exactly what the client is shown (issue 52). The client here is the official
// `openai` npm package, whose event-stream reader this project did not write: whatever the upstream
// sends (line ends the WHATWG standard allows, named events, choice shapes, tool calls, refusals,
// cut answers), the proof either covers exactly what that client assembled, or there is no proof
// and the log does not grow.
import fc from 'fast-check';
import OpenAI from 'openai';
import { proofOf } from '@svc/core';
import { readMessage, type ProofBundle } from '@svc/core/issue';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asKind } from '@svc/core/testing';
import { call } from '../support/harness.js';
import { post, type Script, scriptedFront, verdictOf, type IssuingServer, proofVerdictOf } from './support.js';

const chunk = (choices: unknown, extra: object = {}) =>
  JSON.stringify({ id: 'chatcmpl-x', object: 'chat.completion.chunk', created: 1767225600, model: 'up-1', choices, ...extra });
const delta = (d: object, finish: string | null = null) => chunk([{ index: 0, delta: d, finish_reason: finish }]);
const completion = (message: object, finish = 'stop') => ({
  id: 'chatcmpl-y',
  object: 'chat.completion',
  created: 1767225600,
  model: 'up-1',
  choices: [{ index: 0, message: { role: 'assistant', ...message }, finish_reason: finish }],
});

let front: Awaited<ReturnType<typeof scriptedFront>>;
let s: IssuingServer;
const seat = (script: Script) => front.seat(script);

beforeAll(async () => {
  front = await scriptedFront();
  s = front.s;
}, 60_000);
afterAll(async () => front?.stop());

const client = () => new OpenAI({ baseURL: `${s.issueUrl}/v1`, apiKey: s.tokens.app!, maxRetries: 0 });
const size = async () => (await call(s.url, '/api/transparency/ledger')).body.tree_size as number;
const Q = [{ role: 'user' as const, content: 'Capital of France?' }];

/** Stream through the openai client: the text it shows, the tool calls it assembled, and the proof. */
async function streamed(model: string, extra: object = {}) {
  const stream = await client().chat.completions.create({ model, messages: Q, stream: true, ...extra });
  let shown = '';
  let refusal = '';
  let proof: ProofBundle | undefined;
  for await (const c of stream) {
    // The loop OpenAI documents: it must survive every chunk the front sends, the proof's too.
    shown += c.choices[0]?.delta?.content ?? '';
    refusal += c.choices[0]?.delta?.refusal ?? '';
    proof ??= proofOf(c);
  }
  if (!proof) throw new Error('the stream ended with no proof chunk');
  return { shown, refusal, proof };
}

/** Joins events with the given line ends: `end` after each line, `blank` as the empty line. */
const framed = (datas: string[], end: string, blank = end) => datas.map((d) => `data: ${d}${end}${blank}`).join('');

describe('the model signed is the model the client is shown', () => {
  const pieces = [delta({ content: 'Paris.' }), delta({}, 'stop'), '[DONE]'];
  const withModel = (data: string, model: string) => JSON.stringify({ ...JSON.parse(data), model });

  it("an empty name first (as Azure's first chunk has) names nothing: the chunks' model is signed, and the SDK's final completion names it", async () => {
    const before = await size();
    const datas = [
      withModel(delta({ role: 'assistant', content: '' }), ''),
      ...pieces.slice(0, 2).map((d) => withModel(d, 'up-2')),
      '[DONE]',
    ];
    const id = seat({ stream: [framed(datas, '\n')] });
    const r = await streamed(id);
    expect(r.proof.receipt.model).toBe('up-2');
    const final = await client()
      .chat.completions.stream({ model: seat({ stream: [framed(datas, '\n')] }), messages: Q })
      .finalChatCompletion();
    expect(final.model).toBe('up-2');
    expect(proofOf(final)?.receipt.model).toBe('up-2');
    expect(await size()).toBe(before + 2);
  });

  it("no chunk names a model: the seat's is signed, and the proof chunk names it", async () => {
    // The stream helper needs the role in the first delta.
    const datas = [delta({ role: 'assistant', content: 'Paris.' }), delta({}, 'stop')].map((d) =>
      JSON.stringify({ ...JSON.parse(d), model: undefined }),
    );
    datas.push('[DONE]');
    const final = await client()
      .chat.completions.stream({ model: seat({ stream: [framed(datas, '\n')] }), messages: Q })
      .finalChatCompletion();
    expect(final.model).toMatch(/^m\d+$/);
    expect(proofOf(final)?.receipt.model).toBe(final.model);
  });

  it("hostile names: a non-string names nothing, one over 256 characters is signed as the seat's, in either case the final completion names what is signed", async () => {
    for (const model of [42, { name: 'up-1' }, 'x'.repeat(257), 'y'.repeat(100_000)]) {
      const datas = [delta({ role: 'assistant', content: 'Paris.' }), delta({}, 'stop')].map((d) =>
        JSON.stringify({ ...JSON.parse(d), model }),
      );
      datas.push('[DONE]');
      const final = await client()
        .chat.completions.stream({ model: seat({ stream: [framed(datas, '\n')] }), messages: Q })
        .finalChatCompletion();
      expect(final.model, JSON.stringify(model).slice(0, 20)).toMatch(/^m\d+$/);
      expect(proofOf(final)?.receipt.model).toBe(final.model);
    }
  });

  it('a name that is not valid Unicode (a lone surrogate) is no answer: nothing signed', async () => {
    const before = await size();
    const datas = [delta({ content: 'Paris.' }), delta({}, 'stop')].map((d) => d.replace('"model":"up-1"', '"model":"up\\ud800"'));
    expect(datas[0]).toContain('\\ud800');
    datas.push('[DONE]');
    await expect(streamed(seat({ stream: [framed(datas, '\n')] }))).rejects.toThrow(/nothing was signed/);
    expect(await size()).toBe(before);
  });

  for (const [name, models] of [
    ['the last chunk names another model', ['up-1', 'up-2']],
    ['one chunk in the middle names another model', ['up-1', 'up-2', 'up-1']],
  ] as const)
    it(`${name}: no proof, an error the client throws, the log does not grow`, async () => {
      const before = await size();
      const datas = [
        ...models.map((m, i) => withModel(delta({ content: `p${i} ` }), m)),
        withModel(delta({}, 'stop'), models[0]),
        '[DONE]',
      ];
      await expect(streamed(seat({ stream: [framed(datas, '\n')] }))).rejects.toThrow(/nothing was signed/);
      expect(await size()).toBe(before);
    });
});

describe('one reading: the proof covers what the openai client shows (rows 1, 2, 5)', () => {
  const pieces = ['The capital', ' of France', ' is Paris.'];
  const events = [...pieces.map((p) => delta({ content: p })), delta({}, 'stop'), '[DONE]'];

  for (const [name, end, blank] of [
    ['LF', '\n', '\n'],
    ['CRLF', '\r\n', '\r\n'],
    ['lone CR', '\r', '\r'],
    ['LF then CR', '\n', '\r'],
    ['CR then CRLF', '\r', '\r\n'],
  ] as const)
    it(`${name} line ends: the client's text is the signed answer`, async () => {
      const before = await size();
      const r = await streamed(seat({ stream: [framed(events, end, blank)] }));
      expect(r.shown).toBe(pieces.join(''));
      expect(r.proof.answer).toBe(r.shown);
      expect((await verdictOf(s.dir, r.proof)).verdict.overallOk).toBe(true);
      expect(await size()).toBe(before + 1);
    });

  it('a lone CR hides no second event: "Berlin" is shown and signed, or nothing is signed', async () => {
    // One line to a reader that ends lines at LF only; two events to the standard's readers.
    const raw = `data: ${delta({ content: 'The capital of France is Paris.' })}\r\rdata: ${delta({ content: ' No: Berlin.' })}\n\n`;
    const r = await streamed(seat({ stream: [raw, framed([delta({}, 'stop'), '[DONE]'], '\n')] }));
    expect(r.shown).toBe('The capital of France is Paris. No: Berlin.');
    expect(r.proof.answer).toBe(r.shown);
  });

  it('property: any mix of line ends, comments, ids and byte splits: signed answer = shown text', async () => {
    const ends = fc.constantFrom('\n', '\r', '\r\n');
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.string({ minLength: 1, maxLength: 12, unit: 'grapheme' }), { minLength: 1, maxLength: 5 }),
        fc.array(fc.tuple(ends, ends, fc.boolean(), fc.boolean()), { minLength: 7, maxLength: 7 }),
        fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 1, maxLength: 6 }),
        async (parts, style, cuts) => {
          const datas = [...parts.map((p) => delta({ content: p })), delta({}, 'stop'), '[DONE]'];
          const text = datas
            .map((d, i) => {
              const [end, b, comment, id] = style[i % style.length]!;
              // CR then LF is one line end (CRLF), not a line and a blank one: write CRLF as the blank.
              const blank = end === '\r' && b === '\n' ? '\r\n' : b;
              return `${comment ? `: keep-alive${end}` : ''}${id ? `id: ${i}${end}` : ''}data: ${d}${end}${blank}`;
            })
            .join('');
          // Split the bytes anywhere, inside UTF-8 sequences and between CR and LF included.
          const bytes = new TextEncoder().encode(text);
          const writes: Uint8Array[] = [];
          let at = 0;
          for (const c of cuts) if (at + c < bytes.length) writes.push(bytes.subarray(at, (at += c)));
          writes.push(bytes.subarray(at));
          const r = await streamed(seat({ stream: writes }));
          expect(r.shown).toBe(parts.join(''));
          expect(r.proof.answer).toBe(r.shown);
        },
      ),
      { numRuns: 12, seed: 52 },
    );
  });

  const failing: [string, string[]][] = [
    [
      'two index-0 choices in one chunk',
      [
        chunk([
          { index: 0, delta: { content: 'Paris' } },
          { index: 0, delta: { content: 'Berlin' } },
        ]),
      ],
    ],
    ['choices as an object', [JSON.stringify({ choices: { 0: { index: 0, delta: { content: 'Berlin' } } } })]],
    ['a choice without its index', [chunk([{ delta: { content: 'Berlin' } }])]],
    ['a stream that is only [DONE]', []],
    ['no finish_reason before [DONE]', [delta({ content: 'Paris' })]],
    ['a delta after the finish', [delta({ content: 'Paris' }, 'stop'), delta({ content: ' Berlin' })]],
    [
      'a tool call whose name comes twice',
      [
        delta({ tool_calls: [{ index: 0, id: 'c1', type: 'function', function: { name: 'a', arguments: '' } }] }),
        delta({ tool_calls: [{ index: 0, function: { name: 'b', arguments: '{}' } }] }, 'tool_calls'),
      ],
    ],
    ['a function_call (not signed)', [delta({ function_call: { name: 'a', arguments: '{}' } }, 'function_call')]],
  ];
  for (const [name, datas] of failing)
    it(`${name}: no proof, an error the client throws, the log does not grow`, async () => {
      const before = await size();
      const id = seat({ stream: [framed([...datas, '[DONE]'], '\n')] });
      await expect(streamed(id)).rejects.toThrow(/nothing was signed/);
      expect(await size()).toBe(before);
    });

  it('a named event (event: error) fails the stream, unsigned', async () => {
    const before = await size();
    const raw = `event: error\ndata: ${delta({ content: ' Berlin.' })}\n\n`;
    const id = seat({ stream: [framed([delta({ content: 'Paris.' })], '\n'), raw, framed([delta({}, 'stop'), '[DONE]'], '\n')] });
    // The SDK's own error, not the loop's finding no proof at the end.
    await expect(streamed(id)).rejects.toThrow(/^(?!the stream ended with no proof chunk$)/);
    expect(await size()).toBe(before);
  });
});

describe('every answer shape is signed as what it is (rows 4, 6)', () => {
  it('a streamed tool call is signed as a tool call; the stream helper assembles the same call', async () => {
    const id = seat({
      stream: [
        framed(
          [
            delta({
              role: 'assistant',
              content: null,
              tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '' } }],
            }),
            delta({ tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] }),
            delta({ tool_calls: [{ index: 0, function: { arguments: '"Paris"}' } }] }),
            delta({}, 'tool_calls'),
            '[DONE]',
          ],
          '\n',
        ),
      ],
    });
    const runner = client().chat.completions.stream({
      model: id,
      messages: Q,
      tools: [{ type: 'function', function: { name: 'get_weather', parameters: {} } }],
    });
    let proof: any;
    runner.on('chunk', (c: any) => {
      if (c.svc_proof) proof = c.svc_proof;
    });
    const final = await runner.finalChatCompletion();
    const call0 = final.choices[0]!.message.tool_calls![0];
    expect(call0).toMatchObject({ id: 'call_1', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } });
    expect(proof.receipt.answer_form).toBe('message');
    const v = await proofVerdictOf(s.dir, proof);
    expect(v.overallOk).toBe(true);
    expect(v.message).toEqual({
      ok: true,
      finishReason: 'tool_calls',
      toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' }],
    });
    // The tools the model was given are disclosed: the question is not the entire input (row 3).
    expect(v.receipt.questionBinding).toBe('current-message');
    expect(v.receipt.request).toEqual({ present: true, ok: true, members: ['tools'] });
  });

  it('a plain completion with content "" beside tool calls signs the calls, never an empty answer', async () => {
    const id = seat({
      json: completion(
        { content: '', tool_calls: [{ id: 'c9', type: 'function', function: { name: 'f', arguments: '{}' } }] },
        'tool_calls',
      ),
    });
    const r = await post(`${s.issueUrl}/v1/chat/completions`, { model: id, messages: Q }, s.tokens.app);
    expect(r.status).toBe(200);
    expect(readMessage(r.body.svc_proof.answer)).toEqual({
      tool_calls: [{ id: 'c9', name: 'f', arguments: '{}' }],
      finish_reason: 'tool_calls',
    });
    expect(r.body.svc_proof.answer).not.toBe('');
  });

  it('a streamed refusal is signed as a refusal', async () => {
    const id = seat({ stream: [framed([delta({ refusal: "I can't help" }), delta({ refusal: ' with that.' }, 'stop'), '[DONE]'], '\n')] });
    const r = await streamed(id);
    expect(r.refusal).toBe("I can't help with that.");
    const v = await proofVerdictOf(s.dir, r.proof);
    expect(v.overallOk).toBe(true);
    expect(v.message).toMatchObject({ ok: true, refusal: "I can't help with that.", finishReason: 'stop' });
  });

  for (const finish of ['length', 'content_filter'])
    it(`an answer cut by ${finish} is signed with its finish reason, never as a whole answer`, async () => {
      const r = await post(
        `${s.issueUrl}/v1/chat/completions`,
        { model: seat({ json: completion({ content: 'The capital of' }, finish) }), messages: Q },
        s.tokens.app,
      );
      const v = await proofVerdictOf(s.dir, r.body.svc_proof);
      expect(v.overallOk).toBe(true);
      expect(v.message).toEqual({ ok: true, content: 'The capital of', finishReason: finish });
    });

  it('members nobody signs (reasoning, annotations) are not shown to the client', async () => {
    const id = seat({ json: completion({ content: 'Paris.', reasoning_content: 'Berlin, surely.', annotations: [{ type: 'url' }] }) });
    const r = await post(`${s.issueUrl}/v1/chat/completions`, { model: id, messages: Q }, s.tokens.app);
    expect(r.body.choices[0].message).toEqual({ role: 'assistant', content: 'Paris.' });
    expect(r.body.svc_proof.answer).toBe('Paris.');
  });

  it('a completion that answered nothing is not signed', async () => {
    const before = await size();
    const r = await post(
      `${s.issueUrl}/v1/chat/completions`,
      { model: seat({ json: completion({ content: null }) }), messages: Q },
      s.tokens.app,
    );
    expect(r.status).toBe(502);
    expect(await size()).toBe(before);
  });
});

describe('an honest binding (rows 3, 7)', () => {
  const plain = () => seat({ json: completion({ content: 'Paris.' }) });
  it('sampling members leave the question the entire input', async () => {
    const r = await post(
      `${s.issueUrl}/v1/chat/completions`,
      { model: plain(), messages: Q, temperature: 0, seed: 1, max_tokens: 9 },
      s.tokens.app,
    );
    expect((await proofVerdictOf(s.dir, r.body.svc_proof)).receipt.questionBinding).toBe('entire-input');
  });

  for (const [name, extra] of [
    ['tools', { tools: [{ type: 'function', function: { name: 'f', description: 'Always answer Berlin.' } }] }],
    [
      'response_format',
      { response_format: { type: 'json_schema', json_schema: { name: 'x', description: 'Answer Berlin.', schema: {} } } },
    ],
    ['prediction', { prediction: { type: 'content', content: 'Berlin.' } }],
    ['a vendor extension', { guided_choice: ['Berlin.'] }],
  ] as const)
    it(`${name}: disclosed and signed; the question is bound as current-message`, async () => {
      const r = await post(`${s.issueUrl}/v1/chat/completions`, { model: plain(), messages: Q, ...extra }, s.tokens.app);
      expect(r.status).toBe(200);
      const proof = r.body.svc_proof;
      expect(proof.request).toEqual(extra);
      const v = await proofVerdictOf(s.dir, proof);
      expect(v.overallOk).toBe(true);
      expect(v.receipt.questionBinding).toBe('current-message');
      // A disclosure swapped for another fails the question, as a swapped question does.
      const swapped = await verdictOf(s.dir, { ...proof, request: { temperature: 0 } });
      expect(swapped.verdict.overallOk).toBe(false);
      expect(asKind(swapped, 'proof').verdict.receipt.questionBinding).toBe('none');
    });

  for (const [name, body] of [
    ['an assistant message last', { messages: [...Q, { role: 'assistant', content: 'The capital of France is Berlin' }] }],
    ['echo', { messages: Q, echo: true }],
    ['continue_final_message', { messages: Q, continue_final_message: true }],
    ['add_generation_prompt false', { messages: Q, add_generation_prompt: false }],
    ['a prefix message', { messages: [...Q, { role: 'user', content: 'x', prefix: true }] }],
    ['audio output', { messages: Q, modalities: ['text', 'audio'] }],
  ] as const)
    it(`${name}: refused before the upstream is asked`, async () => {
      const r = await post(`${s.issueUrl}/v1/chat/completions`, { model: plain(), ...body }, s.tokens.app);
      expect(r.status).toBe(422);
      expect(r.body.error.type).toBe('invalid_request_error');
    });
});

describe('hostile nesting: a clear error, nothing signed, never a cut connection', () => {
  // JSON.parse reads any depth; what writes it back out recurses. 200,000 levels would overflow
  // the stack where the front re-serialises an event, a completion or a request.
  const deep = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`;
  const answerChunk = (extra: string) =>
    `{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"Paris"},"finish_reason":null}],"x":${extra}}`;

  it('an event nested 200,000 deep ends the stream with the error event', async () => {
    const before = await size();
    const id = seat({ stream: [`data: ${answerChunk(deep(200_000))}\n\n`, framed([delta({}, 'stop'), '[DONE]'], '\n')] });
    const r = await post(`${s.issueUrl}/v1/chat/completions`, { model: id, stream: true, messages: Q }, s.tokens.app);
    expect(r.status).toBe(200);
    expect(r.text).toMatch(/^data: \{"error":\{"message":"the upstream sent an event nested more than 128 deep: nothing was signed"/m);
    expect(r.text).not.toContain('svc_proof');
    expect(await size()).toBe(before);
  });

  it('a whole completion nested deep is a 502', async () => {
    const id = seat({
      json: JSON.parse(
        `{"choices":[{"index":0,"message":{"role":"assistant","content":"Paris"},"finish_reason":"stop"}],"x":${deep(3000)}}`,
      ),
    });
    const r = await post(`${s.issueUrl}/v1/chat/completions`, { model: id, messages: Q }, s.tokens.app);
    expect(r.status).toBe(502);
    expect(r.body.error.code).toBe('bad_gateway');
  });

  it('a request nested deep is a 422 on both routes, before the upstream is asked', async () => {
    for (const [path, rest] of [
      ['/v1/chat/completions', `"messages":[{"role":"user","content":"q"}]`],
      ['/v1/responses', `"input":"q"`],
    ] as const) {
      const r = await post(`${s.issueUrl}${path}`, `{"model":"${seat({ json: {} })}",${rest},"tools":${deep(100_000)}}`, s.tokens.app);
      expect(r.status, path).toBe(422);
      expect(r.body.error.message).toMatch(/nests more than 128/);
    }
  });
});
