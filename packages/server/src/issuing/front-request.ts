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

/**
 * The Responses API's members that, like CONTROL_MEMBERS, carry no text the model reads.
 * `instructions` is read by the model, and counted as a system message is: it makes the framing's
 * persona, as it does in chat.
 */
export const RESPONSES_CONTROL_MEMBERS: ReadonlySet<string> = new Set([
  'model',
  'input',
  'instructions',
  'stream',
  'stream_options',
  'temperature',
  'top_p',
  'top_logprobs',
  'max_output_tokens',
  'max_tool_calls',
  'user',
  'safety_identifier',
  'prompt_cache_key',
  'prompt_cache_retention',
  'metadata',
  'store',
  'service_tier',
  'reasoning',
  'parallel_tool_calls',
  'truncation',
  'include',
]);

/** Responses members that need state this stateless front does not keep, or a text it cannot see. */
const RESPONSES_REFUSED: Readonly<Record<string, string>> = {
  previous_response_id: 'previous_response_id needs a stored response: this front keeps none; send the whole input',
  conversation: 'conversation needs stored state: this front keeps none; send the whole input',
  background: 'background responses are stored and fetched later: this front keeps none',
  prompt: 'a stored prompt is text the front cannot see and so cannot bind: send it as instructions or input',
};

/**
 * The messages a Responses request puts before the model, in chat's terms, for the rules above: its
 * instructions as a system message, a string input as one user message, and each input item as a
 * message (items that are not messages, such as function_call_output, as turns of their own role).
 * Refuses what needs server-side state. Throws 422.
 */
export function responsesMessages(body: Obj): Message[] {
  for (const [k, why] of Object.entries(RESPONSES_REFUSED))
    if (body[k] !== undefined && body[k] !== null && body[k] !== false) throw new HttpError('invalid_request', `${k}: ${why}`);
  if (body.store === true)
    throw new HttpError('invalid_request', 'store: true keeps the response upstream; this front is stateless: send store: false');
  if (body.instructions !== undefined && body.instructions !== null && typeof body.instructions !== 'string')
    throw new HttpError('invalid_request', 'instructions must be a string');
  const out: Message[] = typeof body.instructions === 'string' ? [{ role: 'system', content: body.instructions }] : [];
  const input = body.input;
  if (typeof input === 'string') return [...out, { role: 'user', content: input }];
  if (!Array.isArray(input) || input.length === 0)
    throw new HttpError('invalid_request', 'input must be a string or a non-empty array of items');
  for (const item of input as unknown[]) {
    if (typeof item !== 'object' || item === null || Array.isArray(item))
      throw new HttpError('invalid_request', 'each input item must be an object');
    const it = item as Obj;
    if (it.type === 'item_reference') throw new HttpError('invalid_request', 'item_reference needs a stored item: this front keeps none');
    if (it.type === undefined || it.type === 'message') {
      if (typeof it.role !== 'string') throw new HttpError('invalid_request', 'an input message must have a role');
      out.push({ role: it.role, content: it.content, ...(it.prefix !== undefined ? { prefix: it.prefix } : {}) });
    } else if (typeof it.type === 'string') out.push({ role: `item:${it.type.slice(0, 64)}` });
    else throw new HttpError('invalid_request', 'an input item type must be a string');
  }
  return out;
}
