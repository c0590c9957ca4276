// proofFetch reads a tee of each answer and leaves the caller's untouched, on every runtime's fetch
// types (it runs in the runtime suite: it names the platform's Response).
import { describe, expect, it } from 'vitest';
import { proofFetch, proofOf } from '../../src/index.js';

const enc = new TextEncoder();
const sse = (events: string[], split = 7) => {
  const bytes = enc.encode(events.map((e) => `data: ${e}\n\n`).join(''));
  return new ReadableStream<Uint8Array>({
    start(c) {
      for (let i = 0; i < bytes.length; i += split) c.enqueue(bytes.subarray(i, i + split));
      c.close();
    },
  });
};
const served = (body: BodyInit, type: string) => async (_url: string) => new Response(body, { headers: { 'content-type': type } });

describe('proofFetch', () => {
  it('a whole completion: the proof is collected, the caller reads the same JSON', async () => {
    const body = JSON.stringify({ choices: [], svc_proof: { answer: 'Paris.' } });
    const captured = proofFetch(served(body, 'application/json'));
    const res = await captured.fetch('http://x/v1/chat/completions');
    expect(await res.text()).toBe(body);
    expect(await captured.settled()).toEqual([{ answer: 'Paris.' }]);
  });

  it('a stream split anywhere: the proof chunk is collected, the caller reads every byte', async () => {
    const events = ['{"choices":[{"index":0,"delta":{"content":"Pa"}}]}', '{"choices":[],"svc_proof":{"answer":"Paris."}}', '[DONE]'];
    const captured = proofFetch(async (_url: string) => new Response(sse(events), { headers: { 'content-type': 'text/event-stream' } }));
    const text = await (await captured.fetch('http://x')).text();
    expect(text).toBe(events.map((e) => `data: ${e}\n\n`).join(''));
    expect(await captured.settled()).toEqual([{ answer: 'Paris.' }]);
  });

  it("another service's member, non-JSON events and other content types are not proofs", async () => {
    const captured = proofFetch(served('{"acme_proof":{}}', 'application/json'), { service: 'svc' });
    await (await captured.fetch('http://x')).text();
    const other = proofFetch(served('not json', 'text/plain'));
    await (await other.fetch('http://x')).text();
    expect(await captured.settled()).toEqual([]);
    expect(await other.settled()).toEqual([]);
    expect(proofOf({ svc_proof: 'a string' })).toBeUndefined();
    expect(proofOf({ acme_proof: { answer: 'x' } }, 'acme')).toEqual({ answer: 'x' });
  });

  it("a Responses stream's final event carries its response's proof; no other event does", async () => {
    const response = { object: 'response', status: 'completed', svc_proof: { answer: 'Paris.' } };
    expect(proofOf({ type: 'response.completed', response })).toEqual({ answer: 'Paris.' });
    expect(proofOf({ type: 'response.incomplete', response })).toEqual({ answer: 'Paris.' });
    expect(proofOf({ type: 'response.created', response })).toBeUndefined();
    expect(proofOf({ type: 'response.completed', response: null })).toBeUndefined();
    const events = ['{"type":"response.created","response":{}}', JSON.stringify({ type: 'response.completed', response })];
    const captured = proofFetch(served(events.map((e) => `event: x\ndata: ${e}\n\n`).join(''), 'text/event-stream'));
    await (await captured.fetch('http://x')).text();
    expect(await captured.settled()).toEqual([{ answer: 'Paris.' }]);
  });
});
