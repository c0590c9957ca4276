// The OpenAI-compatible front: POST /v1/chat/completions goes to the council seat named by `model`,
// and the upstream's answer comes back unchanged with its proof bundle added (`<service>_proof`, a
// member OpenAI clients ignore; streamed, one more event before [DONE]). What is signed is exactly
// what the upstream said, once it has said all of it: an upstream that fails, times out, sends
// more than its cap or something that is not an answer yields an error and no signature.
import type { FramingFlags, ProofBundle } from '@svc/core';
import { HttpError } from '../http/errors.js';
import type { AppRequest, AppResponse } from '../http/types.js';
import type { IssueInput } from './issuer.js';
import type { Logger } from '../log.js';
import { PEER_CAPS, PeerAnswerTooLarge, readCapped } from '../net/peer.js';
import { MAX_TEXT } from './input.js';
import { textSha256 } from '@svc/core';

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

// WF-ISSUE-FRONT
/**
 * The question as it was put, from the messages: the last message, when it is the user's, is the
 * question (its text parts joined by a newline). Alone, it is the entire input; with a system or
 * developer message (persona), earlier turns (history_turns), audio (voice) or any other non-text
 * part (attachment), it is bound as the current message, and the framing says what came with it.
 * A conversation that does not end with a user message has no question to bind: none is signed.
 */
export function questionOf(messages: readonly Message[]): { prompt: string; framing?: FramingFlags } | null {
  const last = messages[messages.length - 1];
  if (last?.role !== 'user') return null;
  let voice: 0 | 1 = 0;
  let attachment: 0 | 1 = 0;
  let prompt: string;
  if (typeof last.content === 'string') prompt = last.content;
  else if (Array.isArray(last.content)) {
    const texts: string[] = [];
    for (const p of last.content as { type?: unknown; text?: unknown }[]) {
      if (p && p.type === 'text' && typeof p.text === 'string') texts.push(p.text);
      else if (p && p.type === 'input_audio') voice = 1;
      else attachment = 1;
    }
    prompt = texts.join('\n');
  } else return null;
  const earlier = messages.slice(0, -1);
  const persona: 0 | 1 = earlier.some((m) => m.role === 'system' || m.role === 'developer') ? 1 : 0;
  const history_turns = earlier.filter((m) => m.role !== 'system' && m.role !== 'developer').length;
  if (!persona && !voice && !attachment && history_turns === 0) return { prompt };
  return { prompt, framing: { persona, voice, attachment, history_turns } };
}

/** The request, checked for what the front needs; the rest goes to the upstream as sent. */
function checkRequest(body: unknown): { model: string; messages: Message[]; stream: boolean } {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new HttpError('invalid_request', 'the body must be a chat completion request object');
  const b = body as Record<string, unknown>;
  if (typeof b.model !== 'string' || b.model === '') throw new HttpError('invalid_request', 'model must name a council seat');
  if (!Array.isArray(b.messages) || b.messages.length === 0 || b.messages.some((m) => typeof m !== 'object' || m === null))
    throw new HttpError('invalid_request', 'messages must be a non-empty array of message objects');
  if (b.n !== undefined && b.n !== 1) throw new HttpError('invalid_request', 'n must be 1: one answer per request is signed');
  if (b.stream !== undefined && typeof b.stream !== 'boolean') throw new HttpError('invalid_request', 'stream must be a boolean');
  return { model: b.model, messages: b.messages as Message[], stream: b.stream === true };
}

/** The answer of a finished completion: choice 0's content, a string the issuer can sign. */
function answerOf(text: unknown): string {
  if (typeof text !== 'string')
    throw new HttpError('bad_gateway', 'the upstream answered no text content (tool calls and refusals are not signed)');
  if (text.length > MAX_TEXT) throw new HttpError('bad_gateway', `the upstream's answer is over ${MAX_TEXT} characters: not signed`);
  if (!textSha256(text)) throw new HttpError('bad_gateway', "the upstream's answer is not valid Unicode text: not signed");
  return text;
}

function inputFor(answer: string, model: string, messages: Message[]): IssueInput {
  const q = questionOf(messages);
  return {
    answer,
    model,
    // One model answered: it was not grounded by a council.
    council_grounded: false,
    ...(q ? { prompt: q.prompt, ...(q.framing ? { framing: q.framing } : {}) } : {}),
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
    const choices = completion.choices as { message?: { content?: unknown } }[] | undefined;
    if (!Array.isArray(choices) || choices.length !== 1) throw new HttpError('bad_gateway', 'the upstream answered no single choice');
    const answer = answerOf(choices[0]?.message?.content);
    const [bundle] = await d.issue([inputFor(answer, answeringModel(completion.model, seat), r.messages)]);
    d.log('issued', { token: req.principal, answers: 1, front: 'chat.completions' });
    return { status: 200, body: { ...completion, [proofMember]: bundle } };
  }
  if (!res.body) throw new HttpError('bad_gateway', 'the upstream answered an empty stream');
  return {
    status: 200,
    headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', 'x-accel-buffering': 'no' },
    stream: (closed) => relay(res.body!, closed, deadline, r, seat, proofMember, d, req.principal),
  };
}

/** One server-sent event's data line, as the OpenAI clients read it. */
const event = (data: unknown) => `data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;

/**
 * Relay the upstream's events as they come, gathering choice 0's deltas; at [DONE], sign what was
 * gathered and send the proof as one more event before [DONE]. Anything else ends the stream with
 * an error event and no proof.
 */
async function* relay(
  body: ReadableStream<Uint8Array>,
  closed: AbortSignal,
  deadline: AbortSignal,
  r: { messages: Message[] },
  seat: Upstream,
  proofMember: string,
  d: FrontDeps,
  principal: string | undefined,
): AsyncGenerator<string> {
  const reader = body.getReader();
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let buffer = '';
  let total = 0;
  let answer = '';
  let model: unknown;
  const fail = (message: string) => {
    d.log('upstream_stream_failed', { token: principal, error: message });
    return event({ error: { message: `${message}: nothing was signed`, type: 'upstream_error', code: 'bad_gateway' } });
  };
  const stop = () => void reader.cancel().catch(() => undefined);
  closed.addEventListener('abort', stop, { once: true });
  // The deadline ends the read itself, as readCapped's does (net/peer.ts says why fetch's own
  // following of its signal is not relied on): a cancelled read ends as `done`, told apart below.
  deadline.addEventListener('abort', stop, { once: true });
  try {
    for (;;) {
      let chunk: Awaited<ReturnType<typeof reader.read>>;
      try {
        chunk = await reader.read();
      } catch {
        if (closed.aborted) return;
        yield fail(deadline.aborted ? 'the upstream model did not finish in time' : 'the upstream connection failed mid-stream');
        return;
      }
      if (closed.aborted) return;
      if (chunk.done || deadline.aborted) {
        yield fail(deadline.aborted ? 'the upstream model did not finish in time' : 'the upstream stream ended before [DONE]');
        return;
      }
      total += chunk.value.length;
      if (total > PEER_CAPS.completion) {
        yield fail(`the upstream stream is over ${PEER_CAPS.completion} bytes`);
        return;
      }
      try {
        buffer += decoder.decode(chunk.value, { stream: true });
      } catch {
        yield fail('the upstream stream is not UTF-8');
        return;
      }
      // Events end with a blank line (LF or CRLF); each is relayed whole, as the upstream sent it.
      for (let end = /\r?\n\r?\n/.exec(buffer); end; end = /\r?\n\r?\n/.exec(buffer)) {
        const raw = buffer.slice(0, end.index);
        buffer = buffer.slice(end.index + end[0].length);
        const data = raw
          .split(/\r?\n/)
          .filter((l) => l.startsWith('data:'))
          .map((l) => l.slice(5).replace(/^ /, ''))
          .join('\n');
        if (data === '') continue;
        if (data === '[DONE]') {
          let bundle: ProofBundle;
          try {
            [bundle] = (await d.issue([inputFor(answerOf(answer), answeringModel(model, seat), r.messages)])) as [ProofBundle];
          } catch (e) {
            yield fail(e instanceof Error ? e.message : 'the answer could not be signed');
            return;
          }
          d.log('issued', { token: principal, answers: 1, front: 'chat.completions', stream: true });
          yield event({ [proofMember]: bundle });
          yield event('[DONE]');
          return;
        }
        let parsed: { model?: unknown; choices?: { index?: unknown; delta?: { content?: unknown } }[]; error?: unknown };
        try {
          parsed = JSON.parse(data);
        } catch {
          yield fail('the upstream sent an event that is not JSON');
          return;
        }
        if (typeof parsed !== 'object' || parsed === null || parsed.error !== undefined) {
          yield fail('the upstream sent an error event');
          return;
        }
        // Only this front writes the proof member: an upstream event carrying one (a proof of some
        // other answer, replayed) would reach the client beside the real one.
        if (Object.hasOwn(parsed, proofMember)) {
          yield fail('the upstream sent an event carrying a proof member');
          return;
        }
        model ??= parsed.model;
        for (const c of Array.isArray(parsed.choices) ? parsed.choices : []) {
          if ((c.index ?? 0) !== 0) {
            yield fail('the upstream streamed more than one choice');
            return;
          }
          const piece = c.delta?.content;
          if (typeof piece === 'string') answer += piece;
          if (answer.length > MAX_TEXT) {
            yield fail(`the upstream's answer is over ${MAX_TEXT} characters`);
            return;
          }
        }
        yield `${raw}\n\n`;
      }
    }
  } finally {
    closed.removeEventListener('abort', stop);
    deadline.removeEventListener('abort', stop);
    stop();
  }
}
