// The message form of an answer (wire-format s.15): when the receipt's signed `answer_form` says the
// answer is a message, the answer text must be exactly a message's canonical text, and the verdict
// shows what it holds (tool calls, a refusal, why it ended), read from the bundle alone.
import { ANSWER_FORM, MESSAGE_FORM, readMessage } from '../wire/message.js';
import { has, type JsonObject } from '../lib/json.js';
import type { Static } from 'typebox';
import type * as S from '../schemas/verdicts.js';

/**
 * A message-form answer as verified: `ok`, then what the signed message holds.
 *
 * @example
 * ```ts
 * if (res.kind === 'svc-proof' && res.verdict.message?.ok) console.log(res.verdict.message.toolCalls);
 * ```
 */
export type MessageVerdict = Static<typeof S.MessageVerdict>;

/** The message verdict of a receipt that declares a form, or undefined for a plain text answer. */
export function checkMessage(receipt: unknown, answer: unknown): MessageVerdict | undefined {
  if (typeof receipt !== 'object' || receipt === null || !has(receipt as JsonObject, ANSWER_FORM)) return undefined;
  const m = (receipt as JsonObject)[ANSWER_FORM] === MESSAGE_FORM ? readMessage(answer) : null;
  if (!m) return { ok: false };
  return {
    ok: true,
    finishReason: m.finish_reason,
    ...(m.content !== undefined ? { content: m.content } : {}),
    ...(m.refusal !== undefined ? { refusal: m.refusal } : {}),
    ...(m.tool_calls ? { toolCalls: m.tool_calls.map((c) => ({ id: c.id, name: c.name, arguments: c.arguments })) } : {}),
  };
}
