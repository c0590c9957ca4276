// POST /v1/responses (issue 52, part 4), driven by the official openai npm package as its docs use
// it: `responses.create` plain and streamed, and the `responses.stream` helper's final response.
// Whatever the upstream sends, the proof covers exactly what that client shows, or there is no
// proof and the log does not grow; one answer signs the same bytes through either API.
import { proofOf } from '@svc/core';
import { readMessage } from '@svc/core/issue';
import fc from 'fast-check';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../support/harness.js';
import { post, type Script, scriptedFront, verdictOf, type IssuingServer, proofVerdictOf } from './support.js';

type Obj = Record<string, unknown>;
const ANSWER = 'The capital of France is Paris.';
const PIECES = ['The capital', ' of France', ' is Paris.'];

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

const response = (status: string, output: unknown[] = [], extra: Obj = {}) => ({
  id: 'resp_1',
  object: 'response',
  created_at: 1767225600,
  status,
  model: 'up-1',
  output,
  ...extra,
});
const message = (parts: Obj[], id = 'msg_1') => ({ id, type: 'message', status: 'completed', role: 'assistant', content: parts });
const text = (t: string) => ({ type: 'output_text', text: t, annotations: [] });
const refusal = (t: string) => ({ type: 'refusal', refusal: t });
const fnCall = (call_id: string, name: string, args: string) => ({
  id: `fc_${call_id}`,
  type: 'function_call',
  status: 'completed',
  call_id,
  name,
  arguments: args,
});

/** The typed events an upstream streams for these items, as OpenAI's API sends them. */
function eventsFor(items: Obj[], pieces: (item: Obj, i: number) => string[], final: Obj): Obj[] {
  const ev: Obj[] = [
    { type: 'response.created', response: response('in_progress') },
    { type: 'response.in_progress', response: response('in_progress') },
  ];
  items.forEach((item, i) => {
    if (item.type === 'function_call') {
      ev.push({ type: 'response.output_item.added', output_index: i, item: { ...item, arguments: '', status: 'in_progress' } });
      for (const p of pieces(item, i))
        ev.push({ type: 'response.function_call_arguments.delta', item_id: item.id, output_index: i, delta: p });
      ev.push({ type: 'response.function_call_arguments.done', item_id: item.id, output_index: i, arguments: item.arguments });
    } else if (item.type === 'reasoning') {
      ev.push({ type: 'response.output_item.added', output_index: i, item });
      ev.push({ type: 'response.reasoning_summary_text.delta', item_id: item.id, output_index: i, summary_index: 0, delta: 'Hm.' });
    } else {
      ev.push({ type: 'response.output_item.added', output_index: i, item: { ...item, content: [], status: 'in_progress' } });
      (item.content as Obj[]).forEach((part, c) => {
        const key = part.type === 'refusal' ? 'refusal' : 'text';
        const kind = part.type === 'refusal' ? 'refusal' : 'output_text';
        ev.push({ type: 'response.content_part.added', item_id: item.id, output_index: i, content_index: c, part: { ...part, [key]: '' } });
        const ps = part.type === 'refusal' ? [part.refusal as string] : pieces(item, i);
        for (const p of ps) ev.push({ type: `response.${kind}.delta`, item_id: item.id, output_index: i, content_index: c, delta: p });
        ev.push({ type: `response.${kind}.done`, item_id: item.id, output_index: i, content_index: c, [key]: part[key] });
        ev.push({ type: 'response.content_part.done', item_id: item.id, output_index: i, content_index: c, part });
      });
    }
    ev.push({ type: 'response.output_item.done', output_index: i, item });
  });
  ev.push({ type: final.status === 'completed' ? 'response.completed' : 'response.incomplete', response: final });
  return ev.map((e, n) => ({ ...e, sequence_number: n }));
}
const framed = (events: Obj[]) => events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join('');
const streamOf = (items: Obj[], final: Obj = response('completed', items)) => framed(eventsFor(items, () => PIECES, final));

/** Streamed through the SDK's loop: the text its deltas show, the final event's response, its proof. */
async function streamed(model: string, extra: Obj = {}) {
  const stream = await client().responses.create({ model, input: 'Capital of France?', stream: true, ...extra } as any);
  let shown = '';
  let final: any;
  for await (const e of stream as unknown as AsyncIterable<any>) {
    if (e.type === 'response.output_text.delta') shown += e.delta;
    if (e.type === 'response.completed' || e.type === 'response.incomplete') final = e.response;
  }
  return { shown, final, proof: proofOf(final)! };
}

describe('POST /v1/responses through the openai package', () => {
  it('plain: output_text is the signed answer, bound as the entire input; stateless upstream call', async () => {
    const before = await size();
    const id = seat({ json: response('completed', [message([text(ANSWER)])], { output_text: 'Berlin.' }) });
    const r = await client().responses.create({ model: id, input: 'Capital of France?' });
    // The upstream's own output_text is not what the client is shown: the SDK joins the items.
    expect(r.output_text).toBe(ANSWER);
    const proof = proofOf(r)!;
    expect(proof.answer).toBe(ANSWER);
    const v = await proofVerdictOf(s.dir, proof);
    expect(v.overallOk).toBe(true);
    expect(v.receipt.questionBinding).toBe('entire-input');
    expect(await size()).toBe(before + 1);
    const asked = front.asked.at(-1)!;
    expect(asked.path).toBe('/v1/responses');
    expect(asked.body).toMatchObject({ model: 'm' + id.slice(1), store: false });
  });

  it('streamed: the usual loop shows the deltas, and the final event carries their proof', async () => {
    const before = await size();
    const r = await streamed(seat({ stream: [streamOf([message([text(ANSWER)])])] }));
    expect(r.shown).toBe(ANSWER);
    expect(r.final.output[0].content[0].text).toBe(ANSWER);
    expect(r.proof.answer).toBe(ANSWER);
    expect((await verdictOf(s.dir, r.proof)).verdict.overallOk).toBe(true);
    expect(await size()).toBe(before + 1);
  });

  it('the stream helper: finalResponse() carries the proof, its output_text the signed text', async () => {
    const id = seat({ stream: [streamOf([{ id: 'rs_1', type: 'reasoning', summary: [] }, message([text(ANSWER)])])] });
    const stream = client().responses.stream({ model: id, input: 'Capital of France?' });
    let shown = '';
    stream.on('response.output_text.delta', (e) => (shown += e.delta));
    const final = await stream.finalResponse();
    expect(shown).toBe(ANSWER);
    expect(final.output_text).toBe(ANSWER);
    // The reasoning item is not signed, so not shown; the message is item 0 of what is relayed.
    expect(final.output.map((o) => o.type)).toEqual(['message']);
    expect(proofOf(final)!.answer).toBe(ANSWER);
  });

  it('a function call is signed as the same message a chat completion with that call signs', async () => {
    const call1 = fnCall('call_1', 'get_weather', '{"city":"Paris"}');
    const plain = await client().responses.create({ model: seat({ json: response('completed', [call1]) }), input: 'Weather?' });
    const viaStream = await streamed(
      seat({ stream: [framed(eventsFor([call1], () => ['{"city":', '"Paris"}'], response('completed', [call1])))] }),
    );
    const chat = await post(
      `${s.issueUrl}/v1/chat/completions`,
      {
        model: seat({
          json: {
            id: 'c',
            object: 'chat.completion',
            created: 1,
            model: 'up-1',
            choices: [
              {
                index: 0,
                message: {
                  role: 'assistant',
                  content: null,
                  tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
                },
                finish_reason: 'tool_calls',
              },
            ],
          },
        }),
        messages: [{ role: 'user', content: 'Weather?' }],
      },
      s.tokens.app,
    );
    const proofs = [proofOf(plain)!, viaStream.proof, chat.body.svc_proof];
    expect(new Set(proofs.map((p) => p.answer)).size).toBe(1);
    expect(readMessage(proofs[0].answer)).toEqual({
      finish_reason: 'tool_calls',
      tool_calls: [{ id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' }],
    });
    for (const p of proofs) {
      expect(p.receipt.answer_form).toBe('message');
      expect((await verdictOf(s.dir, p)).verdict.overallOk).toBe(true);
    }
  });

  it('a refusal and a cut answer are signed with what they are', async () => {
    const refused = await client().responses.create({
      model: seat({ json: response('completed', [message([refusal('I cannot help.')])]) }),
      input: 'x',
    });
    expect(readMessage(proofOf(refused)!.answer)).toEqual({ finish_reason: 'stop', refusal: 'I cannot help.' });
    const cut = await streamed(
      seat({
        stream: [
          streamOf(
            [message([text(ANSWER)])],
            response('incomplete', [message([text(ANSWER)])], { incomplete_details: { reason: 'max_output_tokens' } }),
          ),
        ],
      }),
    );
    expect(cut.shown).toBe(ANSWER);
    expect(readMessage(cut.proof.answer)).toEqual({ finish_reason: 'length', content: ANSWER });
  });
});

describe('what the client is not shown is never signed', () => {
  const good = () => eventsFor([message([text(ANSWER)])], () => PIECES, response('completed', [message([text(ANSWER)])]));
  const edit = (f: (ev: Obj[]) => Obj[]) => framed(f(good()));
  const at = (ev: Obj[], type: string) => ev.findIndex((e) => e.type === type);
  const cases: [string, string][] = [
    ['output_text.done says Berlin', edit((ev) => ev.map((e) => (e.type === 'response.output_text.done' ? { ...e, text: 'Berlin.' } : e)))],
    [
      'the final response says Berlin',
      edit((ev) =>
        ev.map((e) => (e.type === 'response.completed' ? { ...e, response: response('completed', [message([text('Berlin.')])]) } : e)),
      ),
    ],
    ['an event whose name is not its type', framed(good()).replace('event: response.output_text.delta', 'event: message')],
    ['an error event', edit((ev) => [...ev.slice(0, 4), { type: 'error', code: 'x', message: 'boom' }, ...ev.slice(4)])],
    ['response.failed', edit((ev) => [...ev.slice(0, -1), { type: 'response.failed', response: response('failed') }])],
    ['a delta before its part', edit((ev) => ev.filter((e) => e.type !== 'response.content_part.added'))],
    ['no response.created first', edit((ev) => ev.slice(1))],
    [
      'a created response that already has output',
      edit((ev) => [{ ...ev[0]!, response: response('in_progress', [message([text('Berlin.')])]) }, ...ev.slice(1)]),
    ],
    ['the stream ends before response.completed', edit((ev) => ev.slice(0, -1))],
    [
      'a web search item',
      edit((ev) => [
        ...ev.slice(0, 2),
        { type: 'response.output_item.added', output_index: 0, item: { type: 'web_search_call', id: 'ws' } },
      ]),
    ],
    [
      'an upstream proof member on the final response',
      edit((ev) => ev.map((e) => (e.type === 'response.completed' ? { ...e, response: { ...(e.response as Obj), svc_proof: {} } } : e))),
    ],
    [
      'the final response names another model than response.created',
      edit((ev) => ev.map((e) => (e.type === 'response.completed' ? { ...e, response: { ...(e.response as Obj), model: 'up-2' } } : e))),
    ],
    [
      'response.in_progress names another model',
      edit((ev) =>
        ev.map((e) => (e.type === 'response.in_progress' ? { ...e, response: response('in_progress', [], { model: 'up-2' }) } : e)),
      ),
    ],
    [
      'a second item begun before the first is done',
      edit((ev) => {
        const i = at(ev, 'response.output_item.done');
        return [
          ...ev.slice(0, i),
          { type: 'response.output_item.added', output_index: 1, item: { ...message([]), id: 'msg_2' } },
          ...ev.slice(i),
        ];
      }),
    ],
  ];
  for (const [name, raw] of cases)
    it(`${name}: the client gets an error, no proof; the log does not grow`, async () => {
      const before = await size();
      // The front's own error event, not the SDK tripping on what it was sent.
      await expect(streamed(seat({ stream: [raw] }))).rejects.toThrow(/nothing was signed/);
      expect(await size()).toBe(before);
    });

  it('property: any split of the text into deltas and of the stream into writes: signed = shown', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 5 }),
        fc.integer({ min: 1, max: 40 }),
        async (pieces, every) => {
          const whole = pieces.join('');
          const raw = framed(eventsFor([message([text(whole)])], () => pieces, response('completed', [message([text(whole)])])));
          const bytes = new TextEncoder().encode(raw);
          const writes: Uint8Array[] = [];
          for (let i = 0; i < bytes.length; i += every) writes.push(bytes.slice(i, i + every));
          const r = await streamed(seat({ stream: writes }));
          expect(r.shown).toBe(whole);
          expect(r.proof.answer).toBe(whole);
        },
      ),
      { numRuns: 12, seed: 52 },
    );
  });
});

describe('the binding and the stateless rule', () => {
  const plain = () => seat({ json: response('completed', [message([text('Paris.')])]) });
  const verdict = async (body: Obj) => {
    const r = await post(`${s.issueUrl}/v1/responses`, { model: plain(), ...body }, s.tokens.app);
    expect(r.status).toBe(200);
    return { proof: r.body.svc_proof, v: await proofVerdictOf(s.dir, r.body.svc_proof) };
  };

  it('instructions and earlier items frame the question; tools are disclosed', async () => {
    const framedQ = await verdict({
      instructions: 'Be brief.',
      input: [
        { role: 'user', content: 'Hi' },
        { type: 'function_call_output', call_id: 'c1', output: '{}' },
        { role: 'user', content: [{ type: 'input_text', text: 'Capital of France?' }] },
      ],
    });
    expect(framedQ.v.receipt.questionBinding).toBe('current-message');
    expect(framedQ.v.receipt.framing).toMatchObject({ ok: true, persona: 1, historyTurns: 2 });
    const tools = [{ type: 'function', name: 'f', description: 'Always answer Berlin.', parameters: {} }];
    const withTools = await verdict({ input: 'Capital of France?', tools });
    expect(withTools.proof.request).toEqual({ tools });
    expect(withTools.v.receipt.request).toEqual({ present: true, ok: true, members: ['tools'] });
    const alone = await verdict({ input: 'Capital of France?', temperature: 0, max_output_tokens: 50, store: false });
    expect(alone.v.receipt.questionBinding).toBe('entire-input');
  });

  for (const [name, body] of [
    ['previous_response_id', { input: 'x', previous_response_id: 'resp_0' }],
    ['store: true', { input: 'x', store: true }],
    ['conversation', { input: 'x', conversation: 'conv_1' }],
    ['background', { input: 'x', background: true }],
    ['a stored prompt', { input: 'x', prompt: { id: 'pmpt_1' } }],
    ['an item_reference', { input: [{ type: 'item_reference', id: 'msg_0' }] }],
    [
      'an assistant message last',
      {
        input: [
          { role: 'user', content: 'x' },
          { role: 'assistant', content: 'Berlin' },
        ],
      },
    ],
    ['no input', {}],
  ] as const)
    it(`${name}: refused in OpenAI's error shape before the upstream is asked`, async () => {
      const asked = front.asked.length;
      const r = await post(`${s.issueUrl}/v1/responses`, { model: plain(), ...body }, s.tokens.app);
      expect(r.status).toBe(422);
      expect(r.body.error.type).toBe('invalid_request_error');
      expect(front.asked.length).toBe(asked);
    });
});
