// What a chat completion answered, read one way only, and what of it is signed (wire-format s.15).
// A whole completion and a stream of chunks are read by the same rules: `choices` an array with one
// entry for index 0 at most; a message's text, refusal and tool calls are signed, with the finish
// reason; members nobody signs are dropped from what the client is shown; anything that two
// clients could read two ways (a tool call's id or name sent twice, a delta after the finish, a
// choices object) fails the answer, unsigned.
import { MESSAGE_FORM, MESSAGE_LIMITS, messageText, type MessageAnswer, type ToolCall } from '@svc/core/issue';
import { MAX_TEXT } from './input.js';

/** Why an upstream's answer cannot be signed; the front answers it as 502, nothing signed. */
export class NotAnAnswer extends Error {
  override readonly name = 'NotAnAnswer';
}

/** The signed form of an answer: its exact text, and `message` when it is not plain text. */
export interface SignedAnswer {
  text: string;
  form?: typeof MESSAGE_FORM;
}

type Obj = Record<string, unknown>;
const isObj = (x: unknown): x is Obj => typeof x === 'object' && x !== null && !Array.isArray(x);

/** A message's or delta's members that are signed; the rest are dropped from what is relayed. */
const SIGNED_MEMBERS = ['role', 'content', 'refusal', 'tool_calls'] as const;
/** Members that carry an answer this front does not sign: their presence fails the answer. */
const UNSIGNABLE = ['function_call', 'audio'] as const;

/** Choice 0 of a chunk or completion; throws when `choices` is anything but [] or one index-0 entry. */
export function onlyChoice(container: Obj): Obj | null {
  const choices = container.choices;
  if (!Array.isArray(choices)) throw new NotAnAnswer('the upstream sent choices that are not an array');
  if (choices.length === 0) return null;
  if (choices.length > 1) throw new NotAnAnswer('the upstream sent more than one choice (n is 1)');
  const c = choices[0];
  if (!isObj(c)) throw new NotAnAnswer('the upstream sent a choice that is not an object');
  if (c.index !== 0) throw new NotAnAnswer('the upstream sent a choice whose index is not 0');
  return c;
}

/** The members of a message or delta that are shown and signed, checked for their types. */
function signedPart(m: unknown, where: string): Obj {
  if (!isObj(m)) throw new NotAnAnswer(`the upstream's ${where} is not an object`);
  for (const k of UNSIGNABLE)
    if (m[k] !== undefined && m[k] !== null) throw new NotAnAnswer(`the upstream answered ${k}, which is not signed`);
  if (m.role !== undefined && m.role !== null && m.role !== 'assistant')
    throw new NotAnAnswer('the upstream answered a role other than assistant');
  for (const k of ['content', 'refusal'] as const)
    if (m[k] !== undefined && m[k] !== null && typeof m[k] !== 'string') throw new NotAnAnswer(`the upstream's ${k} is not a string`);
  if (m.tool_calls !== undefined && m.tool_calls !== null && !Array.isArray(m.tool_calls))
    throw new NotAnAnswer("the upstream's tool_calls is not an array");
  const out: Obj = {};
  for (const k of SIGNED_MEMBERS) if (m[k] !== undefined) out[k] = m[k];
  return out;
}

/** The text and tool calls of one answer, gathered as they come (a whole message is one delta). */
export class AnswerGatherer {
  private content = '';
  private refusal = '';
  private readonly calls: ToolCall[] = [];
  private finish: string | null = null;

  /**
   * Fold one choice in; returns it as it is to be relayed (signed members only). A choice after the
   * finish, or a tool call whose id, type or name comes twice, is refused: clients read those apart.
   */
  add(choice: Obj, member: 'delta' | 'message'): Obj {
    if (this.finish !== null) throw new NotAnAnswer('the upstream sent more after its answer finished');
    const part = signedPart(choice[member], member);
    if (typeof part.content === 'string') this.content += part.content;
    if (typeof part.refusal === 'string') this.refusal += part.refusal;
    for (const t of (part.tool_calls as unknown[] | null | undefined) ?? []) this.addCall(t, member === 'message');
    if (this.content.length + this.refusal.length > MAX_TEXT) throw new NotAnAnswer(`the upstream's answer is over ${MAX_TEXT} characters`);
    const fr = choice.finish_reason;
    if (fr !== undefined && fr !== null) {
      if (typeof fr !== 'string' || fr.length === 0 || fr.length > MESSAGE_LIMITS.finishReason)
        throw new NotAnAnswer("the upstream's finish_reason is not a short string");
      this.finish = fr;
    }
    const relayed: Obj = { ...choice, [member]: part };
    return relayed;
  }

  private addCall(t: unknown, whole: boolean): void {
    if (!isObj(t)) throw new NotAnAnswer('the upstream sent a tool call that is not an object');
    const fn = t.function;
    if (t.type !== undefined && t.type !== 'function') throw new NotAnAnswer('the upstream called a tool that is not a function');
    if (fn !== undefined && !isObj(fn)) throw new NotAnAnswer("the upstream's tool call function is not an object");
    const index = whole ? this.calls.length : t.index;
    if (index === this.calls.length) {
      if (this.calls.length >= MESSAGE_LIMITS.toolCalls) throw new NotAnAnswer('the upstream called too many tools');
      // A call starts whole: its id, type and name come once, with its first piece.
      if (typeof t.id !== 'string' || t.type !== 'function' || !isObj(fn) || typeof fn.name !== 'string' || fn.name === '')
        throw new NotAnAnswer('a tool call must begin with its id, type function and name');
      if (t.id.length > MESSAGE_LIMITS.id || fn.name.length > MESSAGE_LIMITS.name)
        throw new NotAnAnswer("a tool call's id or name is too long");
      this.calls.push({ id: t.id, name: fn.name, arguments: '' });
    } else if (typeof index !== 'number' || index < 0 || index >= this.calls.length || t.id !== undefined || t.type !== undefined)
      throw new NotAnAnswer('the upstream sent a tool call out of order, or its id or type twice');
    else if (fn !== undefined && isObj(fn) && fn.name !== undefined) throw new NotAnAnswer("the upstream sent a tool call's name twice");
    const args = isObj(fn) ? fn.arguments : undefined;
    if (args !== undefined && typeof args !== 'string') throw new NotAnAnswer("a tool call's arguments are not a string");
    const call = this.calls[index as number]!;
    call.arguments += args ?? '';
    if (call.arguments.length > MAX_TEXT) throw new NotAnAnswer("a tool call's arguments are too long");
  }

  /** Whether the upstream has said why its answer ended. */
  get finished(): boolean {
    return this.finish !== null;
  }

  /**
   * The answer as signed: plain text when it is only text that ended with `stop`, else the message
   * form. Nothing is signed when the upstream gave nothing (no text, refusal or tool call), or
   * never said why it stopped.
   */
  signed(): SignedAnswer {
    if (this.finish === null) throw new NotAnAnswer('the upstream did not say why its answer ended (finish_reason)');
    if (this.content === '' && this.refusal === '' && this.calls.length === 0) throw new NotAnAnswer('the upstream answered nothing');
    if (this.finish === 'stop' && this.refusal === '' && this.calls.length === 0) return { text: this.content };
    const m: MessageAnswer = { finish_reason: this.finish };
    if (this.content !== '') m.content = this.content;
    if (this.refusal !== '') m.refusal = this.refusal;
    if (this.calls.length > 0) m.tool_calls = this.calls.map((c) => ({ ...c }));
    return { text: messageText(m), form: MESSAGE_FORM };
  }
}
