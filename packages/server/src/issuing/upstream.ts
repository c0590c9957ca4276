// What every front route shares with the upstream seat it forwards to: the call (its deadline, no
// redirects), the capped read of a whole answer, and the relay of a streamed one, which signs when
// the route's reader says the answer is whole and ends with the route's error event otherwise. What
// a route reads out of an answer is its own (openai.ts, responses.ts); how it is signed is shared.
import type { ProofBundle } from '@svc/core/issue';
import { nestedDeeperThan, textSha256 } from '@svc/core/primitives';
import { HttpError } from '../http/errors.js';
import type { AppResponse } from '../http/types.js';
import type { Logger } from '../log.js';
import { PEER_CAPS, PeerAnswerTooLarge, readCapped } from '../net/peer.js';
import { NotAnAnswer, type SignedAnswer } from './answer-shape.js';
import type { Question } from './front-request.js';
import type { IssueInput } from './issuer.js';
import { readEvents, StreamFailure } from './sse.js';

/**
 * How deep a request to the front or an upstream's answer may nest. A chat or Responses answer is
 * under 10 deep and a tool's JSON Schema rarely 30; what is relayed or disclosed is written back
 * out, by recursion, so nothing deeper is read.
 */
export const FRONT_MAX_DEPTH = 128;

/** A request to a front route, refused (422) when it nests deeper than FRONT_MAX_DEPTH. */
export function checkDepth(body: unknown): void {
  if (nestedDeeperThan(body, FRONT_MAX_DEPTH))
    throw new HttpError('invalid_request', `the request nests more than ${FRONT_MAX_DEPTH} arrays or objects deep`);
}

/** Where a seat's requests go. */
export interface Upstream {
  /** `<endpoint>/chat/completions`. */
  url: string;
  /** `<endpoint>/responses`. */
  responses: string;
  /** The seat's API key (from its key_env), sent as a bearer token; none when unset. */
  key?: string;
  /** The model id the upstream knows. */
  model: string;
}

export interface Upstreams {
  /** The seat a request's `model` names (its id, or its model), or null. */
  seat(model: string): Upstream | null;
}

export interface FrontDeps {
  issue(inputs: readonly IssueInput[], owner?: string): Promise<ProofBundle[]>;
  service: string;
  upstreams: Upstreams;
  log: Logger;
  upstreamMs?: number;
}

type Obj = Record<string, unknown>;

/** What the issuer signs for an answer: its form, the model, and the question as bound. */
export function inputFor(answer: SignedAnswer, model: string, q: Question | null): IssueInput {
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
export function answeringModel(said: unknown, seat: Upstream): string {
  if (typeof said !== 'string' || said.length === 0 || said.length > 256) return seat.model;
  // Signed as exact UTF-8 in the receipt: a name with no such form is not an answer's.
  if (!textSha256(said)) throw new NotAnAnswer('the upstream named its model in text that is not valid Unicode');
  return said;
}

/**
 * The model a stream names (wire-format s.15): the one non-empty `model` string among its events.
 * A stream naming two is no answer: a loop over the chunks shows each name, and the SDKs' final
 * completion takes the last, so signing any one of them would sign a name the client was shown
 * another beside. An empty name (Azure's first chunk has one) names nothing.
 */
export class StreamModel {
  private name: string | undefined;

  add(said: unknown): void {
    if (typeof said !== 'string' || said === '') return;
    if (this.name === undefined) this.name = said;
    else if (said !== this.name) throw new NotAnAnswer('the upstream named two models in one stream');
  }

  /** The one model the stream named so far, if any. */
  get named(): string | undefined {
    return this.name;
  }

  /** The model signed for this stream: the one it named, or the seat's (answeringModel). */
  answering(seat: Upstream): string {
    return answeringModel(this.name, seat);
  }
}

/** The seat a request names, or 422. */
export function seatOf(d: FrontDeps, model: string): Upstream {
  const seat = d.upstreams.seat(model);
  if (!seat) throw new HttpError('invalid_request', `no council seat is named ${JSON.stringify(model.slice(0, 64))}`);
  return seat;
}

/** POST the request to the seat (its model substituted); a failed or non-2xx answer is a 502. */
export async function callUpstream(
  url: string,
  seat: Upstream,
  body: Obj,
  signal: AbortSignal,
  log: Logger,
  principal: string | undefined,
): Promise<Response> {
  let res: Response;
  try {
    res = await fetch(url, {
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
  if (!res.ok) {
    await res.body?.cancel().catch(() => undefined);
    log('upstream_failed', { token: principal, status: res.status });
    throw new HttpError('bad_gateway', `the upstream model answered ${res.status}: nothing was signed`);
  }
  return res;
}

/** A whole answer: read within its cap and deadline, UTF-8 JSON, an object without a proof member. */
export async function readWhole(res: Response, url: string, deadline: AbortSignal, proofMember: string, what: string): Promise<Obj> {
  let raw: Uint8Array;
  try {
    raw = await readCapped(res, PEER_CAPS.completion, url, deadline);
  } catch (e) {
    if (e instanceof PeerAnswerTooLarge)
      throw new HttpError('bad_gateway', `the upstream's answer is over ${PEER_CAPS.completion} bytes: not signed`);
    if (deadline.aborted) throw new HttpError('gateway_timeout', 'the upstream model did not finish its answer in time');
    throw new HttpError('bad_gateway', 'the upstream connection failed mid-answer: nothing was signed');
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(raw));
  } catch {
    throw new HttpError('bad_gateway', 'the upstream answered what is not JSON: nothing was signed');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed) || proofMember in parsed)
    throw new HttpError('bad_gateway', `the upstream answered what is not ${what}`);
  if (nestedDeeperThan(parsed, FRONT_MAX_DEPTH))
    throw new HttpError('bad_gateway', `the upstream's answer nests more than ${FRONT_MAX_DEPTH} deep: nothing was signed`);
  return parsed as Obj;
}

/** An upstream event as parsed: its JSON data, an object; never one carrying the proof member. */
export function eventObject(data: string, proofMember: string): Obj {
  let parsed: unknown;
  try {
    parsed = JSON.parse(data);
  } catch {
    throw new NotAnAnswer('the upstream sent an event that is not JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new NotAnAnswer('the upstream sent an event that is not an object');
  const p = parsed as Obj;
  if (nestedDeeperThan(p, FRONT_MAX_DEPTH)) throw new NotAnAnswer(`the upstream sent an event nested more than ${FRONT_MAX_DEPTH} deep`);
  if (p.error !== undefined) throw new NotAnAnswer('the upstream sent an error event');
  // Only this front writes the proof member: an upstream event carrying one (a proof of some other
  // answer, replayed) would reach the client beside the real one.
  if (Object.hasOwn(p, proofMember)) throw new NotAnAnswer('the upstream sent an event carrying a proof member');
  return p;
}

/** How a route reads its upstream's answer: a whole one, or a stream through its reader. */
export interface Reading {
  url: string;
  deadline: AbortSignal;
  proofMember: string;
  /** The route's name in the `issued` log line. */
  front: string;
  /** What a whole answer must be, for the 502 that says it is not. */
  what: string;
  stream: boolean;
  /** A whole answer: what the client is shown, and what is signed. Throws NotAnAnswer. */
  whole(answer: Obj): { shown: Obj; input: IssueInput };
  reader(): StreamReader;
}

/**
 * The upstream's answer, as the route reads it, back to the client: whole, signed then returned with
 * the proof member (502 for what is not an answer, nothing signed); streamed, relayed as read.
 */
export async function deliver(res: Response, r: Reading, d: FrontDeps, principal: string | undefined): Promise<AppResponse> {
  if (!r.stream) {
    const answer = await readWhole(res, r.url, r.deadline, r.proofMember, r.what);
    let read: { shown: Obj; input: IssueInput };
    try {
      read = r.whole(answer);
    } catch (e) {
      if (e instanceof NotAnAnswer) throw new HttpError('bad_gateway', `${e.message}: nothing was signed`);
      throw e;
    }
    const [bundle] = await d.issue([read.input], principal);
    d.log('issued', { token: principal, answers: 1, front: r.front });
    return { status: 200, body: { ...read.shown, [r.proofMember]: bundle } };
  }
  if (!res.body) throw new HttpError('bad_gateway', 'the upstream answered an empty stream');
  const reader = r.reader();
  return {
    status: 200,
    headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', 'x-accel-buffering': 'no' },
    stream: (closed) => relay(res.body!, closed, r.deadline, reader, d, principal, r.front),
  };
}

/** What a route's reader makes of one event: events to relay, or the whole answer to sign. */
export type ReadStep = { relay: string[] } | { sign: IssueInput; after(bundle: ProofBundle): string[] };

/** A route's reading of its upstream's stream. */
export interface StreamReader {
  read(ev: { event?: string | undefined; data: string }): ReadStep;
  /** The event that ends a failed stream, in the route's shape. */
  failure(message: string): string;
}

/**
 * Relay the upstream's events as the reader parsed them (wire-format s.15); when the reader says
 * the answer is whole, sign it and send what the reader makes of the proof. Anything else ends the
 * stream with the reader's error event and no proof.
 */
export async function* relay(
  body: ReadableStream<Uint8Array>,
  closed: AbortSignal,
  deadline: AbortSignal,
  reader: StreamReader,
  d: FrontDeps,
  principal: string | undefined,
  front: string,
): AsyncGenerator<string> {
  const source = body.getReader();
  const fail = (message: string) => {
    d.log('upstream_stream_failed', { token: principal, error: message });
    return reader.failure(`${message}: nothing was signed`);
  };
  const stop = () => void source.cancel().catch(() => undefined);
  closed.addEventListener('abort', stop, { once: true });
  // The deadline ends the read itself, as readCapped's does (net/peer.ts says why fetch's own
  // following of its signal is not relied on): a cancelled read ends the events, told apart below.
  deadline.addEventListener('abort', stop, { once: true });
  try {
    for await (const ev of readEvents(source, PEER_CAPS.completion, () => closed.aborted || deadline.aborted)) {
      const step = reader.read(ev);
      if ('relay' in step) {
        yield* step.relay;
        continue;
      }
      let bundle: ProofBundle;
      try {
        [bundle] = (await d.issue([step.sign], principal)) as [ProofBundle];
      } catch (e) {
        yield fail(e instanceof Error ? e.message : 'the answer could not be signed');
        return;
      }
      d.log('issued', { token: principal, answers: 1, front, stream: true });
      yield* step.after(bundle);
      return;
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
