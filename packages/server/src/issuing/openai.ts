// The OpenAI-compatible front: POST /v1/chat/completions goes to the council seat named by `model`,
// and the upstream's answer comes back unchanged with its proof bundle added (`<service>_proof`, a
// member OpenAI clients ignore; streamed, one more event before [DONE]). What is signed is exactly
// what the upstream said, once it has said all of it: an upstream that fails, times out, sends
// more than its cap or something that is not an answer yields an error and no signature.
import type { ProofBundle } from '@svc/core/issue';
import { HttpError } from '../http/errors.js';
import type { AppRequest, AppResponse } from '../http/types.js';
import { AnswerGatherer, NotAnAnswer, onlyChoice } from './answer-shape.js';
import { bindingOf, refuseClientWrittenAnswers } from './front-request.js';
import { sseEvent } from './sse.js';
import {
  answeringModel,
  callUpstream,
  deliver,
  checkDepth,
  eventObject,
  type FrontDeps,
  inputFor,
  type ReadStep,
  seatOf,
  type StreamReader,
  StreamModel,
  type Upstream,
} from './upstream.js';

export { questionOf } from './front-request.js';
export type { Upstream, Upstreams } from './upstream.js';

type Message = { role?: unknown; content?: unknown };
type Obj = Record<string, unknown>;

/** The request, checked for what the front needs; the rest goes to the upstream as sent. */
function checkRequest(body: unknown): { model: string; messages: Message[]; stream: boolean; body: Obj } {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new HttpError('invalid_request', 'the body must be a chat completion request object');
  const b = body as Obj;
  checkDepth(b);
  if (typeof b.model !== 'string' || b.model === '') throw new HttpError('invalid_request', 'model must name a council seat');
  if (!Array.isArray(b.messages) || b.messages.length === 0 || b.messages.some((m) => typeof m !== 'object' || m === null))
    throw new HttpError('invalid_request', 'messages must be a non-empty array of message objects');
  if (b.n !== undefined && b.n !== 1) throw new HttpError('invalid_request', 'n must be 1: one answer per request is signed');
  if (b.stream !== undefined && typeof b.stream !== 'boolean') throw new HttpError('invalid_request', 'stream must be a boolean');
  refuseClientWrittenAnswers(b, b.messages as Message[]);
  return { model: b.model, messages: b.messages as Message[], stream: b.stream === true, body: b };
}

/**
 * POST /v1/chat/completions on the private listener.
 *
 * @example
 * ```ts
 * const res = await chatCompletions(req, { model: 'seat-1', messages: [{ role: 'user', content: 'Hi' }] }, deps);
 * ```
 */
export async function chatCompletions(req: AppRequest, body: unknown, d: FrontDeps): Promise<AppResponse> {
  const r = checkRequest(body);
  const seat = seatOf(d, r.model);
  const proofMember = `${d.service}_proof`;
  const deadline = AbortSignal.timeout(d.upstreamMs ?? 120_000);
  const res = await callUpstream(seat.url, seat, r.body, deadline, d.log, req.principal);
  return deliver(
    res,
    {
      url: seat.url,
      deadline,
      proofMember,
      front: 'chat.completions',
      what: 'a chat completion',
      stream: r.stream,
      whole: (completion) => {
        const choice = onlyChoice(completion);
        if (!choice) throw new NotAnAnswer('the upstream answered no choice');
        const gathered = new AnswerGatherer();
        const shown = { ...completion, choices: [gathered.add(choice, 'message')] };
        return { shown, input: inputFor(gathered.signed(), answeringModel(completion.model, seat), bindingOf(r.body, r.messages)) };
      },
      reader: () => chunkReader(r, seat, proofMember),
    },
    d,
    req.principal,
  );
}

/**
 * The chunks of a streamed completion, read as wire-format s.15 says: each relayed as parsed,
 * choice 0 gathered; at [DONE] the answer is signed and the proof sent as one more chunk before
 * [DONE].
 */
function chunkReader(r: { messages: Message[]; body: Obj }, seat: Upstream, proofMember: string): StreamReader {
  const gathered = new AnswerGatherer();
  const model = new StreamModel();
  let last: Obj | null = null;
  return {
    read(ev): ReadStep {
      // The standard's readers (and the OpenAI clients) name an event `message` unless it says
      // otherwise; the clients throw on `error`. Any other name is not part of an answer.
      if (ev.event !== undefined && ev.event !== 'message')
        throw new NotAnAnswer(`the upstream sent an event named ${JSON.stringify(ev.event.slice(0, 32))}`);
      if (ev.data === '[DONE]')
        return {
          sign: inputFor(gathered.signed(), model.answering(seat), bindingOf(r.body, r.messages)),
          after: (bundle) => [sseEvent(proofChunk(last, proofMember, bundle)), sseEvent('[DONE]')],
        };
      const p = eventObject(ev.data, proofMember);
      model.add(p.model);
      last = p;
      const choice = onlyChoice(p);
      return { relay: [sseEvent(choice ? { ...p, choices: [gathered.add(choice, 'delta')] } : p)] };
    },
    failure: (message) => sseEvent({ error: { message, type: 'upstream_error', code: 'bad_gateway', param: null } }),
  };
}

/**
 * The chunk that carries the proof: a chat.completion.chunk of the stream's id and time with one
 * empty delta for choice 0, so the clients' loops over `chunk.choices[0].delta` read it as nothing
 * said, and the proof beside it. Its model is the one signed: the SDKs' final completion takes the
 * last chunk's, so it names the model the receipt does.
 */
function proofChunk(last: Obj | null, proofMember: string, bundle: ProofBundle): Obj {
  const same = (k: string) => (last && last[k] !== undefined ? { [k]: last[k] } : {});
  return {
    ...same('id'),
    object: 'chat.completion.chunk',
    ...same('created'),
    model: bundle.receipt.model,
    choices: [{ index: 0, delta: {}, finish_reason: null }],
    [proofMember]: bundle,
  };
}
