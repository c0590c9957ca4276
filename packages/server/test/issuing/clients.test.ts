// The proofs reach the clients people use (issue 52), each used as its documentation shows, against
// a real upstream this test starts (chat completions and the Responses API): the official openai
// npm package (plain, the documented streaming loop, the stream helper) and LangChain JS (invoke and
// stream, on either API), which keeps no unknown member, so it reaches the proof through
// proofFetch, the fetch wrapper it accepts.
import type { ServerResponse } from 'node:http';
import { ChatOpenAI } from '@langchain/openai';
import { proofFetch, proofOf } from '@svc/core';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issuingServer, upstreamServer, verdictOf, type IssuingServer } from './support.js';

const ANSWER = 'The capital of France is Paris.';
const PIECES = ['The capital', ' of France', ' is Paris.'];
let upstream: Awaited<ReturnType<typeof upstreamServer>>;
let s: IssuingServer;

beforeAll(async () => {
  upstream = await upstreamServer((req, body, res) => {
    if (req.url!.endsWith('/responses')) return responsesAnswer(body, res);
    const base = { id: 'chatcmpl-c', created: 1767225600, model: 'up-1' };
    if (!body.stream) {
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(
        JSON.stringify({
          ...base,
          object: 'chat.completion',
          choices: [{ index: 0, message: { role: 'assistant', content: ANSWER }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 5, completion_tokens: 7, total_tokens: 12 },
        }),
      );
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const chunk = (choices: unknown[], extra = {}) =>
      `data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices, ...extra })}\n\n`;
    res.write(chunk([{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }]));
    for (const p of PIECES) res.write(chunk([{ index: 0, delta: { content: p }, finish_reason: null }]));
    res.write(chunk([{ index: 0, delta: {}, finish_reason: 'stop' }]));
    if (body.stream_options?.include_usage) res.write(chunk([], { usage: { prompt_tokens: 5, completion_tokens: 7, total_tokens: 12 } }));
    res.end('data: [DONE]\n\n');
  });
  const up = `${upstream.base}/v1`;
  s = await issuingServer({
    env: { SVC_RATE_ISSUE: '0' },
    council: { seats: [{ id: 'seat-1', label: 'one', model: 'up-1', endpoint: up }] },
  });
}, 60_000);
afterAll(async () => {
  await s?.stop();
  await upstream?.close();
});

/** The Responses API's shapes for ANSWER: one message item, whole or as its typed events. */
function responsesAnswer(body: any, res: ServerResponse) {
  const response = (status: string, output: unknown[]) => ({
    id: 'resp_c',
    object: 'response',
    created_at: 1767225600,
    status,
    model: 'up-1',
    output,
  });
  const part = { type: 'output_text', text: ANSWER, annotations: [] };
  const item = { id: 'msg_c', type: 'message', status: 'completed', role: 'assistant', content: [part] };
  if (!body.stream)
    return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(response('completed', [item])));
  const at = { item_id: 'msg_c', output_index: 0, content_index: 0 };
  const events = [
    { type: 'response.created', response: response('in_progress', []) },
    { type: 'response.output_item.added', output_index: 0, item: { ...item, status: 'in_progress', content: [] } },
    { type: 'response.content_part.added', ...at, part: { ...part, text: '' } },
    ...PIECES.map((delta) => ({ type: 'response.output_text.delta', ...at, delta })),
    { type: 'response.output_text.done', ...at, text: ANSWER },
    { type: 'response.content_part.done', ...at, part },
    { type: 'response.output_item.done', output_index: 0, item },
    { type: 'response.completed', response: response('completed', [item]) },
  ];
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.end(events.map((e, n) => `event: ${e.type}\ndata: ${JSON.stringify({ ...e, sequence_number: n })}\n\n`).join(''));
}

async function expectProofOf(proof: unknown, text: string) {
  expect(proof).toBeDefined();
  expect((proof as { answer: string }).answer).toBe(text);
  const v = await verdictOf(s.dir, proof);
  expect(v.verdict.overallOk).toBe(true);
  expect(v.signerRecognized).toBe(true);
}

describe('the openai npm package', () => {
  const client = () => new OpenAI({ baseURL: `${s.issueUrl}/v1`, apiKey: s.tokens.app!, maxRetries: 0 });

  it('plain: proofOf reads the proof off the completion it returns', async () => {
    const completion = await client().chat.completions.create({
      model: 'seat-1',
      messages: [{ role: 'user', content: 'Capital of France?' }],
    });
    expect(completion.choices[0]!.message.content).toBe(ANSWER);
    await expectProofOf(proofOf(completion), ANSWER);
  });

  it('streamed: the documented loop runs to its end, with and without include_usage, and the proof is a chunk', async () => {
    for (const stream_options of [undefined, { include_usage: true }]) {
      const stream = await client().chat.completions.create({
        model: 'seat-1',
        messages: [{ role: 'user', content: 'Capital of France?' }],
        stream: true,
        ...(stream_options ? { stream_options } : {}),
      });
      let text = '';
      let proof: unknown;
      for await (const chunk of stream) {
        text += chunk.choices[0]?.delta?.content || '';
        proof ??= proofOf(chunk);
      }
      expect(text).toBe(ANSWER);
      await expectProofOf(proof, ANSWER);
    }
  });

  it('the stream helper: finalChatCompletion() is the answer, finish reason kept', async () => {
    const captured = proofFetch(fetch);
    const c = new OpenAI({ baseURL: `${s.issueUrl}/v1`, apiKey: s.tokens.app!, maxRetries: 0, fetch: captured.fetch });
    const runner = c.chat.completions.stream({ model: 'seat-1', messages: [{ role: 'user', content: 'Capital of France?' }] });
    const final = await runner.finalChatCompletion();
    expect(final.choices[0]!.message.content).toBe(ANSWER);
    expect(final.choices[0]!.finish_reason).toBe('stop');
    const proof = (await captured.settled()).at(-1);
    await expectProofOf(proof, ANSWER);
    // The model the helper's final completion names is the one signed.
    expect(final.model).toBe(proof?.receipt.model);
  });

  it('errors arrive as the SDK error classes, with the code', async () => {
    const bad = new OpenAI({ baseURL: `${s.issueUrl}/v1`, apiKey: 'svc_it_wrong', maxRetries: 0 });
    const e = await bad.chat.completions.create({ model: 'seat-1', messages: [{ role: 'user', content: 'q' }] }).catch((x) => x);
    expect(e).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(e.code).toBe('unauthorized');
    const e2 = await client()
      .chat.completions.create({ model: 'nobody', messages: [{ role: 'user', content: 'q' }] })
      .catch((x) => x);
    expect(e2).toBeInstanceOf(OpenAI.UnprocessableEntityError);
    expect(e2.code).toBe('invalid_request');
  });
});

describe('LangChain JS (@langchain/openai)', () => {
  const llm = (fetchImpl: typeof fetch, streaming = false) =>
    new ChatOpenAI({
      model: 'seat-1',
      apiKey: s.tokens.app!,
      maxRetries: 0,
      streaming,
      configuration: { baseURL: `${s.issueUrl}/v1`, fetch: fetchImpl },
    });

  it('invoke: the proof is captured by proofFetch', async () => {
    const captured = proofFetch(fetch);
    const msg = await llm(captured.fetch).invoke('Capital of France?');
    expect(msg.content).toBe(ANSWER);
    await expectProofOf((await captured.settled()).at(-1), ANSWER);
  });

  for (const streaming of [false, true])
    it(`the Responses API (useResponsesApi, ${streaming ? 'stream' : 'invoke'}): the proof is captured`, async () => {
      const captured = proofFetch(fetch);
      const responsesLlm = new ChatOpenAI({
        model: 'seat-1',
        apiKey: s.tokens.app!,
        maxRetries: 0,
        useResponsesApi: true,
        configuration: { baseURL: `${s.issueUrl}/v1`, fetch: captured.fetch },
      });
      let text = '';
      if (streaming) for await (const chunk of await responsesLlm.stream('Capital of France?')) text += chunk.text;
      else text = (await responsesLlm.invoke('Capital of France?')).text;
      expect(text).toBe(ANSWER);
      await expectProofOf((await captured.settled()).at(-1), ANSWER);
    });

  it('stream: the chunks join to the answer; the proof is captured', async () => {
    const captured = proofFetch(fetch);
    let text = '';
    let shownModel: unknown;
    for await (const chunk of await llm(captured.fetch, true).stream('Capital of France?')) {
      text += chunk.content;
      shownModel = chunk.response_metadata?.model_name ?? shownModel;
    }
    expect(text).toBe(ANSWER);
    const proof = (await captured.settled()).at(-1);
    await expectProofOf(proof, ANSWER);
    expect(shownModel).toBe(proof?.receipt.model);
  });
});
