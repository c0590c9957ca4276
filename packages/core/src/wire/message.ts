// The message form of a signed answer (wire-format s.15): what a model answered when it is more
// than plain text that ended normally (tool calls, a refusal, an answer cut short), as one exact
// text. The issuing side writes it, the verifying side reads it back; the receipt says which form
// its answer is in (`answer_form`, a signed member), so a text answer that merely looks like this
// JSON is never read as a tool call.
import { canonicalize, tryCanonicalize } from '../encoding/jcs.js';
import { isObj } from '../lib/json.js';

/**
 * The receipt member that marks an answer as a message (signed with the receipt).
 *
 * @example
 * ```ts
 * const isMessage = bundle.receipt[ANSWER_FORM] === MESSAGE_FORM;
 * ```
 */
export const ANSWER_FORM = 'answer_form';
/**
 * The one value of `answer_form`: the answer is a message's canonical text.
 *
 * @example
 * ```ts
 * issueProof({ answer: messageText(m), answerForm: MESSAGE_FORM, model: 'm-1', ts }, keys);
 * ```
 */
export const MESSAGE_FORM = 'message';

/**
 * One function call the model asked for: its id, the function's name, and its arguments exactly as
 * the model wrote them (a string: never re-serialised, so what is signed is what the model said).
 *
 * @example
 * ```ts
 * const call: ToolCall = { id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' };
 * ```
 */
export interface ToolCall {
  id: string;
  name: string;
  arguments: string;
}

/**
 * A model's answer in the message form: text, a refusal and tool calls (each present only when
 * non-empty, at least one present) and why the answer ended, as the upstream said it.
 *
 * @example
 * ```ts
 * const m: MessageAnswer = { tool_calls: [{ id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' }], finish_reason: 'tool_calls' };
 * ```
 */
export interface MessageAnswer {
  content?: string;
  refusal?: string;
  tool_calls?: ToolCall[];
  finish_reason: string;
}

const MEMBERS = new Set(['content', 'refusal', 'tool_calls', 'finish_reason']);
const CALL_MEMBERS = ['arguments', 'id', 'name'];
/**
 * Longest finish reason and tool-call id or name accepted, and the most tool calls; beyond them a
 * value is not a message answer.
 *
 * @example
 * ```ts
 * if (calls.length > MESSAGE_LIMITS.toolCalls) throw new Error('too many tool calls to sign');
 * ```
 */
export const MESSAGE_LIMITS = { finishReason: 64, id: 256, name: 256, toolCalls: 128 } as const;

const str = (x: unknown, max = Number.POSITIVE_INFINITY, min = 1): x is string =>
  typeof x === 'string' && x.length >= min && x.length <= max;

function wellFormedCall(c: unknown): c is ToolCall {
  if (!isObj(c)) return false;
  const keys = Object.keys(c).sort();
  return (
    keys.length === 3 &&
    keys.every((k, i) => k === CALL_MEMBERS[i]) &&
    str(c.id, MESSAGE_LIMITS.id, 0) &&
    str(c.name, MESSAGE_LIMITS.name) &&
    str(c.arguments, Number.POSITIVE_INFINITY, 0)
  );
}

/**
 * Whether a value is a message answer as signed: only the four members, each of its type, the
 * optional ones non-empty, and at least one of content, refusal and tool calls.
 *
 * @example
 * ```ts
 * isMessageAnswer({ finish_reason: 'stop' }); // false: nothing was answered
 * ```
 */
export function isMessageAnswer(m: unknown): m is MessageAnswer {
  if (!isObj(m) || !Object.keys(m).every((k) => MEMBERS.has(k))) return false;
  if (!str(m.finish_reason, MESSAGE_LIMITS.finishReason)) return false;
  if (m.content !== undefined && !str(m.content)) return false;
  if (m.refusal !== undefined && !str(m.refusal)) return false;
  if (m.tool_calls !== undefined) {
    const calls = m.tool_calls;
    if (!Array.isArray(calls) || calls.length === 0 || calls.length > MESSAGE_LIMITS.toolCalls) return false;
    if (!calls.every(wellFormedCall)) return false;
  }
  return m.content !== undefined || m.refusal !== undefined || m.tool_calls !== undefined;
}

/**
 * The exact answer text of a message: its canonical JSON (RFC 8785). Throws on a value that is not
 * a message answer: nothing malformed is ever signed.
 *
 * @example
 * ```ts
 * messageText({ content: 'Paris', finish_reason: 'length' }); // '{"content":"Paris","finish_reason":"length"}'
 * ```
 */
export function messageText(m: MessageAnswer): string {
  if (!isMessageAnswer(m)) throw new TypeError('not a message answer (wire-format s.15)');
  return canonicalize(m);
}

/**
 * The message an answer text holds, or null when the text is not exactly the canonical JSON of a
 * message answer (another spelling of the same object is refused: one answer, one text).
 *
 * @example
 * ```ts
 * readMessage('{"finish_reason":"length","content":"Paris"}'); // null: not canonical
 * ```
 */
export function readMessage(text: unknown): MessageAnswer | null {
  if (typeof text !== 'string') return null;
  let m: unknown;
  try {
    m = JSON.parse(text);
  } catch {
    return null;
  }
  return isMessageAnswer(m) && tryCanonicalize(m) === text ? m : null;
}
