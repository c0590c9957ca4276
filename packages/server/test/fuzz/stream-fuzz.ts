// A fuzzer of what an upstream streams to the front (issue 52): the families the front must read as
// a client does — line ends (LF, CRLF, lone CR, mixed), comment/id/retry lines, event names, choice
// shapes (arrays, objects, second index-0 entries, other indexes), deltas of text, refusals and tool
// calls (whole, repeated ids or names), roles and unsigned members, finish reasons and deltas after
// them, non-JSON and error events, endings with and without [DONE], UTF-8 split across writes — and
// request members beyond the messages. The oracle is the client: what the openai package's
// documented loop assembles must be exactly what the proof signs, or there is no proof.
import { prng } from '@svc/core/arbitraries';

type Obj = Record<string, unknown>;

export interface StreamCase {
  name: string;
  /** The upstream's bytes, in the writes it makes. */
  writes: Uint8Array[];
  /** Members sent beside the messages. */
  extras: Obj;
}

const enc = new TextEncoder();
const pick = <T>(r: () => number, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
const TEXTS = ['Paris', ' is', ' the capital', '.', ' 🗼', ' é', '\n', ' "quoted"', ' \\ back', '', ' Berlin', '\u2028', ' 北京'];
const ENDS = ['\n', '\r\n', '\r'];
const EXTRAS: Obj[] = [
  {},
  {},
  { temperature: 0.2, seed: 7 },
  { tools: [{ type: 'function', function: { name: 'f', description: 'Answer Berlin.' } }] },
  { response_format: { type: 'json_object' } },
  { guided_choice: ['Berlin'] },
  { stop: ['\n\n'], logit_bias: { '42': -100 } },
];

/** One delta of choice 0, of a random family; `k` counts the tool calls begun so far. */
function randomDelta(r: () => number, k: { calls: number }): Obj {
  const f = r();
  if (f < 0.55) return { content: pick(r, TEXTS) };
  if (f < 0.62) return { refusal: pick(r, TEXTS) };
  if (f < 0.75) {
    // A call begun whole, or a later piece of one (sometimes malformed: id or name again).
    if (k.calls === 0 || r() < 0.4) {
      const i = k.calls++;
      return {
        tool_calls: [{ index: i, id: `call_${i}`, type: 'function', function: { name: pick(r, ['get', 'set', 'f']), arguments: '' } }],
      };
    }
    const i = Math.floor(r() * k.calls);
    const piece: Obj = { index: i, function: { arguments: pick(r, ['{"a":', '1}', '"x"', '', '{}']) } };
    if (r() < 0.1) piece.id = `call_${i}`;
    if (r() < 0.1) (piece.function as Obj).name = 'again';
    return { tool_calls: [piece] };
  }
  if (f < 0.8) return { role: pick(r, ['assistant', 'assistant', 'user', 'tool']) };
  if (f < 0.85) return { content: pick(r, TEXTS), reasoning_content: 'hidden thoughts' };
  if (f < 0.88) return { function_call: { name: 'f', arguments: '{}' } };
  if (f < 0.9) return { content: 7 };
  return {};
}

/** A chunk's `choices`, mostly one index-0 choice; sometimes a shape clients read apart. */
function randomChoices(r: () => number, delta: Obj, finish: string | null): unknown {
  const one = { index: 0, delta, finish_reason: finish };
  const f = r();
  if (f < 0.9) return [one];
  if (f < 0.93) return [one, { ...one, delta: { content: ' Berlin' } }];
  if (f < 0.95) return { 0: one };
  if (f < 0.97) return [{ ...one, index: 1 }];
  if (f < 0.99) return [];
  return 'x';
}

/** A random stream of events in random framing, cut into random writes. */
export function randomStreamCase(r: () => number, n: number): StreamCase {
  const k = { calls: 0 };
  const events: { data: string; name?: string }[] = [];
  const count = 1 + Math.floor(r() * 8);
  const chunk = (choices: unknown, extra: Obj = {}) =>
    JSON.stringify({ id: 'chatcmpl-f', object: 'chat.completion.chunk', created: 1767225600, model: 'up-1', choices, ...extra });
  for (let i = 0; i < count; i++) events.push({ data: chunk(randomChoices(r, randomDelta(r, k), null)) });
  const finish = r();
  if (finish < 0.85)
    events.push({ data: chunk(randomChoices(r, {}, pick(r, ['stop', 'stop', 'stop', 'length', 'tool_calls', 'content_filter']))) });
  if (r() < 0.05) events.push({ data: chunk([{ index: 0, delta: { content: ' more' }, finish_reason: null }]) });
  if (r() < 0.1) events.push({ data: chunk([], { usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 } }) });
  const odd = r();
  if (odd < 0.03) events.splice(Math.floor(r() * events.length), 0, { data: '{"error":{"message":"boom"}}' });
  else if (odd < 0.06) events.splice(Math.floor(r() * events.length), 0, { data: 'not json' });
  else if (odd < 0.09) events.splice(Math.floor(r() * events.length), 0, { data: chunk([], { svc_proof: { answer: 'forged' } }) });
  else if (odd < 0.14) events[Math.floor(r() * events.length)]!.name = pick(r, ['error', 'ping', 'message', 'delta']);
  if (r() < 0.92) events.push({ data: '[DONE]' });
  // Framing: each line ends with one of the standard's line ends; some events carry comments, ids.
  let text = '';
  for (const e of events) {
    const end = r() < 0.7 ? '\n' : pick(r, ENDS);
    if (r() < 0.1) text += `: keep-alive${end}`;
    if (r() < 0.1) text += `id: ${Math.floor(r() * 100)}${end}`;
    if (r() < 0.05) text += `retry: 1000${end}`;
    if (e.name !== undefined) text += `event: ${e.name}${end}`;
    text += `data: ${e.data}${end}${end}`;
  }
  if (r() < 0.05) text = text.slice(0, Math.floor(r() * text.length));
  // Writes cut anywhere, UTF-8 sequences included.
  const bytes = enc.encode(text);
  const writes: Uint8Array[] = [];
  for (let at = 0; at < bytes.length; ) {
    const len = 1 + Math.floor(r() * (r() < 0.3 ? 4 : 200));
    writes.push(bytes.slice(at, at + len));
    at += len;
  }
  return { name: `stream ${n}`, writes, extras: pick(r, EXTRAS) };
}

/** What the openai package's documented streaming loop assembled from choice 0. */
export interface Shown {
  content: string;
  refusal: string;
  calls: { id: string; name: string; arguments: string }[];
  finish: string | null;
}

/** Fold one chunk as the clients' loops do: text appended, tool calls assembled by index. */
export function foldChunk(shown: Shown, chunk: any): void {
  const c = chunk?.choices?.[0];
  if (!c) return;
  const d = c.delta ?? {};
  if (typeof d.content === 'string') shown.content += d.content;
  if (typeof d.refusal === 'string') shown.refusal += d.refusal;
  for (const t of d.tool_calls ?? []) {
    const call = (shown.calls[t.index] ??= { id: '', name: '', arguments: '' });
    if (t.id) call.id = t.id;
    if (t.function?.name) call.name = t.function.name;
    if (t.function?.arguments) call.arguments += t.function.arguments;
  }
  if (c.finish_reason) shown.finish = c.finish_reason;
}

/** The message the proof should sign for what was shown: plain text, or the message form's members. */
export function expectedAnswer(s: Shown): { text: string } | { message: Obj } {
  if (s.finish === 'stop' && s.refusal === '' && s.calls.length === 0) return { text: s.content };
  const m: Obj = { finish_reason: s.finish };
  if (s.content !== '') m.content = s.content;
  if (s.refusal !== '') m.refusal = s.refusal;
  if (s.calls.length > 0) m.tool_calls = s.calls;
  return { message: m };
}

export { prng };
