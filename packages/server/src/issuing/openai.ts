// The OpenAI-compatible front: POST /v1/chat/completions goes to the council seat named by `model`,
// and the upstream's answer comes back unchanged with its proof bundle added (`<service>_proof`, a
// member OpenAI clients ignore; streamed, one more event before [DONE]). What is signed is exactly
// what the upstream said, once it has said all of it: an upstream that fails, times out, sends
// more than its cap or something that is not an answer yields an error and no signature.
import type { ProofBundle } from '@svc/core';
import { HttpError } from '../http/errors.js';
import type { AppRequest, AppResponse } from '../http/types.js';
import type { IssueInput } from './issuer.js';
import type { Logger } from '../log.js';
import { PEER_CAPS, PeerAnswerTooLarge, readCapped } from '../net/peer.js';
import { textSha256 } from '@svc/core';
import { AnswerGatherer, NotAnAnswer, onlyChoice, type SignedAnswer } from './answer-shape.js';
import { bindingOf, refuseClientWrittenAnswers, type Question } from './front-request.js';
import { readEvents, sseEvent, StreamFailure } from './sse.js';

export { questionOf } from './front-request.js';

/** Where a seat's requests go. */
export interface Upstream {
  /** `<endpoint>/chat/completions`. */
  url: string;
  /** The seat's API key (from its key_env), sent as a bearer token; none when unset. */
  key?: string;
  /** The model id the upstream knows. */
  model: string;
}

export interface Upstreams {
  /** The seat a request's `model` names (its id, or its model), or null. */
  seat(model: string): Upstream | null;
}

interface FrontDeps {
  issue(inputs: readonly IssueInput[]): Promise<ProofBundle[]>;
  service: string;
  upstreams: Upstreams;
  log: Logger;
  upstreamMs?: number;
}

type Message = { role?: unknown; content?: unknown };

/** The request, checked for what the front needs; the rest goes to the upstream as sent. */
function checkRequest(body: unknown): { model: string; messages: Message[]; stream: boolean; body: Record<string, unknown> } {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new HttpError('invalid_request', 'the body must be a chat completion request object');
  const b = body as Record<string, unknown>;
  if (typeof b.model !== 'string' || b.model === '') throw new HttpError('invalid_request', 'model must name a council seat');
  if (!Array.isArray(b.messages) || b.messages.length === 0 || b.messages.some((m) => typeof m !== 'object' || m === null))
    throw new HttpError('invalid_request', 'messages must be a non-empty array of message objects');
  if (b.n !== undefined && b.n !== 1) throw new HttpError('invalid_request', 'n must be 1: one answer per request is signed');
  if (b.stream !== undefined && typeof b.stream !== 'boolean') throw new HttpError('invalid_request', 'stream must be a boolean');
  refuseClientWrittenAnswers(b, b.messages as Message[]);
  return { model: b.model, messages: b.messages as Message[], stream: b.stream === true, body: b };
}

/** What the issuer signs for an answer: its form, the model, and the question as bound. */
function inputFor(answer: SignedAnswer, model: string, q: Question | null): IssueInput {
  if (!textSha256(answer.text)) throw new NotAnAnswer("the upstream's answer is not valid Unicode text");
  return {
    answer: answer.text,
    ...(answer.form ? { answerForm: answer.form } : {}),
    model,
    // One model answered: it was not grounded by a council.
    council_grounded: false,
    ...(q ? { prompt: q.prompt, ...(q.framing ? { framing: q.framing } : {}), ...(q.request ? { request: q.request } : {}) } : {}),
  };
}

/** The model the upstream says answered, when it says one plausibly; else the seat's. */
function answeringModel(said: unknown, seat: Upstream): string {
  return typeof said === 'string' && said.length > 0 && said.length <= 256 ? said : seat.model;
}

async function callUpstream(seat: Upstream, body: Record<string, unknown>, signal: AbortSignal): Promise<Response> {
  try {
    return await fetch(seat.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...(seat.key ? { authorization: `Bearer ${seat.key}` } : {}),
      },
      body: JSON.stringify({ ...body, model: seat.model }),
      signal,
      redirect: 'error',
    });
  } catch (e) {
    if (signal.aborted) throw new HttpError('gateway_timeout', 'the upstream model did not answer in time');
    throw new HttpError('bad_gateway', `the upstream model could not be reached (${e instanceof Error ? e.message : 'error'})`);
  }
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
  const seat = d.upstreams.seat(r.model);
  if (!seat) throw new HttpError('invalid_request', `no council seat is named ${JSON.stringify(r.model.slice(0, 64))}`);
  const proofMember = `${d.service}_proof`;
  const deadline = AbortSignal.timeout(d.upstreamMs ?? 120_000);
  const res = await callUpstream(seat, body as Record<string, unknown>, deadline);
  if (!res.ok) {
    await res.body?.cancel().catch(() => undefined);
    d.log('upstream_failed', { token: req.principal, status: res.status });
    throw new HttpError('bad_gateway', `the upstream model answered ${res.status}: nothing was signed`);
  }
  if (!r.stream) {
    let raw: Uint8Array;
    try {
      raw = await readCapped(res, PEER_CAPS.completion, seat.url, deadline);
    } catch (e) {
      if (e instanceof PeerAnswerTooLarge)
        throw new HttpError('bad_gateway', `the upstream's answer is over ${PEER_CAPS.completion} bytes: not signed`);
      if (deadline.aborted) throw new HttpError('gateway_timeout', 'the upstream model did not finish its answer in time');
      throw new HttpError('bad_gateway', 'the upstream connection failed mid-answer: nothing was signed');
    }
    let completion: Record<string, unknown>;
    try {
      completion = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(raw));
    } catch {
      throw new HttpError('bad_gateway', 'the upstream answered what is not JSON: nothing was signed');
    }
    if (typeof completion !== 'object' || completion === null || Array.isArray(completion) || proofMember in completion)
      throw new HttpError('bad_gateway', 'the upstream answered what is not a chat completion');
    let relayed: Record<string, unknown>;
    let input: IssueInput;
    try {
      const choice = onlyChoice(completion);
      if (!choice) throw new NotAnAnswer('the upstream answered no choice');
      const gathered = new AnswerGatherer();
      relayed = { ...completion, choices: [gathered.add(choice, 'message')] };
      input = inputFor(gathered.signed(), answeringModel(completion.model, seat), bindingOf(r.body, r.messages));
    } catch (e) {
      if (e instanceof NotAnAnswer) throw new HttpError('bad_gateway', `${e.message}: nothing was signed`);
      throw e;
    }
    const [bundle] = await d.issue([input]);
    d.log('issued', { token: req.principal, answers: 1, front: 'chat.completions' });
    return { status: 200, body: { ...relayed, [proofMember]: bundle } };
  }
  if (!res.body) throw new HttpError('bad_gateway', 'the upstream answered an empty stream');
  return {
    status: 200,
    headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', 'x-accel-buffering': 'no' },
    stream: (closed) => relay(res.body!, closed, deadline, r, seat, proofMember, d, req.principal),
  };
}

/**
 * Relay the upstream's events as this front parsed them (wire-format s.15), gathering choice 0;
 * at [DONE], sign what was gathered and send the proof as one more chunk before [DONE]. Anything
 * else ends the stream with an error event and no proof.
 */
async function* relay(
  body: ReadableStream<Uint8Array>,
  closed: AbortSignal,
  deadline: AbortSignal,
  r: { messages: Message[]; body: Record<string, unknown> },
  seat: Upstream,
  proofMember: string,
  d: FrontDeps,
  principal: string | undefined,
): AsyncGenerator<string> {
  const reader = body.getReader();
  const gathered = new AnswerGatherer();
  let model: unknown;
  let last: Record<string, unknown> | null = null;
  const fail = (message: string) => {
    d.log('upstream_stream_failed', { token: principal, error: message });
    return sseEvent({ error: { message: `${message}: nothing was signed`, type: 'upstream_error', code: 'bad_gateway', param: null } });
  };
  const stop = () => void reader.cancel().catch(() => undefined);
  closed.addEventListener('abort', stop, { once: true });
  // The deadline ends the read itself, as readCapped's does (net/peer.ts says why fetch's own
  // following of its signal is not relied on): a cancelled read ends the events, told apart below.
  deadline.addEventListener('abort', stop, { once: true });
  try {
    for await (const ev of readEvents(reader, PEER_CAPS.completion, () => closed.aborted || deadline.aborted)) {
      // The standard's readers (and the OpenAI clients) name an event `message` unless it says
      // otherwise; the clients throw on `error`. Any other name is not part of an answer.
      if (ev.event !== undefined && ev.event !== 'message')
        throw new NotAnAnswer(`the upstream sent an event named ${JSON.stringify(ev.event.slice(0, 32))}`);
      if (ev.data === '[DONE]') {
        const input = inputFor(gathered.signed(), answeringModel(model, seat), bindingOf(r.body, r.messages));
        let bundle: ProofBundle;
        try {
          [bundle] = (await d.issue([input])) as [ProofBundle];
        } catch (e) {
          yield fail(e instanceof Error ? e.message : 'the answer could not be signed');
          return;
        }
        d.log('issued', { token: principal, answers: 1, front: 'chat.completions', stream: true });
        yield sseEvent(proofChunk(last, proofMember, bundle));
        yield sseEvent('[DONE]');
        return;
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(ev.data);
      } catch {
        throw new NotAnAnswer('the upstream sent an event that is not JSON');
      }
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
        throw new NotAnAnswer('the upstream sent an event that is not an object');
      const p = parsed as Record<string, unknown>;
      if (p.error !== undefined) throw new NotAnAnswer('the upstream sent an error event');
      // Only this front writes the proof member: an upstream event carrying one (a proof of some
      // other answer, replayed) would reach the client beside the real one.
      if (Object.hasOwn(p, proofMember)) throw new NotAnAnswer('the upstream sent an event carrying a proof member');
      model ??= p.model;
      last = p;
      const choice = onlyChoice(p);
      yield sseEvent(choice ? { ...p, choices: [gathered.add(choice, 'delta')] } : p);
    }
    if (closed.aborted) return;
    yield fail('the upstream model did not finish in time');
  } catch (e) {
    if (closed.aborted) return;
    if (e instanceof NotAnAnswer || e instanceof StreamFailure) {
      yield fail(deadline.aborted ? 'the upstream model did not finish in time' : e.message);
      return;
    }
    throw e;
  } finally {
    closed.removeEventListener('abort', stop);
    deadline.removeEventListener('abort', stop);
    stop();
  }
}

/**
 * The chunk that carries the proof: a chat.completion.chunk of the stream's id, model and time with
 * one empty delta for choice 0, so the clients' loops over `chunk.choices[0].delta` read it as
 * nothing said, and the proof beside it.
 */
function proofChunk(last: Record<string, unknown> | null, proofMember: string, bundle: ProofBundle): Record<string, unknown> {
  const same = (k: string) => (last && last[k] !== undefined ? { [k]: last[k] } : {});
  return {
    ...same('id'),
    object: 'chat.completion.chunk',
    ...same('created'),
    ...same('model'),
    choices: [{ index: 0, delta: {}, finish_reason: null }],
    [proofMember]: bundle,
  };
}
