// What a request to the front puts before the model, decided once for every front route (wire-format
// s.15): the question (the last user message), its framing (what else came in the messages), and
// the request's members beyond the messages that the model reads (tools, a response format, a
// prediction, any member this front does not know), which are disclosed in what is signed. Members
// that would make the client's own text come back as the model's (echo, prefill, an assistant
// message last) are refused before anything goes upstream.
import type { FramingFlags } from '@svc/core';
import { HttpError } from '../http/errors.js';

type Obj = Record<string, unknown>;
type Message = { role?: unknown; content?: unknown; prefix?: unknown };

/**
 * Members that steer how the model samples or how the answer travels, and carry no text the model
 * reads: they leave the question the entire input. Any other member is disclosed.
 */
export const CONTROL_MEMBERS: ReadonlySet<string> = new Set([
  'model',
  'messages',
  'stream',
  'stream_options',
  'n',
  'temperature',
  'top_p',
  'top_k',
  'min_p',
  'seed',
  'max_tokens',
  'max_completion_tokens',
  'presence_penalty',
  'frequency_penalty',
  'repetition_penalty',
  'logprobs',
  'top_logprobs',
  'user',
  'safety_identifier',
  'prompt_cache_key',
  'metadata',
  'store',
  'service_tier',
  'reasoning_effort',
  'verbosity',
  'parallel_tool_calls',
]);

/** Members refused: they make the client's text part of the answer, or ask for what is not signed. */
export const REFUSED_MEMBERS: Readonly<Record<string, string>> = {
  echo: "echo returns the client's own text as the model's",
  continue_final_message: "continue_final_message makes the client's text part of the answer",
  prefix: 'prefix lets the client write the start of the answer',
  prefill: 'prefill lets the client write the start of the answer',
  functions: 'functions is deprecated: send tools',
  function_call: 'function_call is deprecated: send tool_choice',
  audio: 'audio answers are not signed: only text, refusals and tool calls are',
  modalities: 'only text answers are signed: leave modalities out',
};

/** The question and what came with it, as the receipt binds them. */
export interface Question {
  prompt: string;
  framing?: FramingFlags;
  /** The request's members beyond the messages that the model read; bound by digest. */
  request?: Obj;
}

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
      if (p && (p.type === 'text' || p.type === 'input_text') && typeof p.text === 'string') texts.push(p.text);
      else if (p && (p.type === 'input_audio' || p.type === 'audio')) voice = 1;
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

/** The request's members the model reads beyond its messages, or undefined when there are none. */
export function disclosedMembers(body: Obj, control: ReadonlySet<string> = CONTROL_MEMBERS): Obj | undefined {
  const out: Obj = {};
  for (const [k, v] of Object.entries(body)) if (!control.has(k) && v !== undefined) out[k] = v;
  return Object.keys(out).length > 0 ? out : undefined;
}

/**
 * The refusals every front route shares: refused members, a last message that is the assistant's,
 * or a message asking to be continued. Throws 422.
 */
export function refuseClientWrittenAnswers(body: Obj, messages: readonly Message[]): void {
  for (const [k, why] of Object.entries(REFUSED_MEMBERS))
    if (body[k] !== undefined && body[k] !== false && body[k] !== null) throw new HttpError('invalid_request', `${k}: ${why}`);
  // vLLM's default is true; false (with a continued final message) lets the client start the answer.
  if (body.add_generation_prompt === false)
    throw new HttpError('invalid_request', 'add_generation_prompt false lets the client write the start of the answer');
  const last = messages[messages.length - 1];
  if (last?.role === 'assistant')
    throw new HttpError(
      'invalid_request',
      "the last message is the assistant's: its continuation would sign the client's text as the model's",
    );
  if (messages.some((m) => m.prefix !== undefined && m.prefix !== false))
    throw new HttpError('invalid_request', 'a message marked prefix lets the client write the start of the answer');
}

/** The question of a request and what it discloses; null when no question can be bound. */
export function bindingOf(body: Obj, messages: readonly Message[], control?: ReadonlySet<string>): Question | null {
  const q = questionOf(messages);
  if (!q) return null;
  const request = disclosedMembers(body, control);
  return { ...q, ...(request ? { request } : {}) };
}
