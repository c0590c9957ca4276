// What a Responses API answer said, read one way only, and what of it is signed (wire-format s.15.6).
// The output items are read into the same pieces a chat completion has (text, refusal, function
// calls, a finish reason) and signed by the same gatherer, so one answer signs the same bytes by
// either API. A whole response and a stream of typed events are read by the same item rules; in a
// stream every view a client can take (the deltas, each `.done` event, each finished item, the
// final response) must agree, or nothing is signed.
import { AnswerGatherer, NotAnAnswer, type SignedAnswer } from './answer-shape.js';

type Obj = Record<string, unknown>;
const isObj = (x: unknown): x is Obj => typeof x === 'object' && x !== null && !Array.isArray(x);

/** A content part as signed and relayed: text (its annotations are not signed, so not shown) or a refusal. */
export type Part = { type: 'output_text'; text: string } | { type: 'refusal'; refusal: string };

/** An output item as signed: a message's parts, or a function call. Reasoning items are neither. */
export type Item =
  | { type: 'message'; id?: string; parts: Part[] }
  | { type: 'function_call'; id?: string; call_id: string; name: string; arguments: string };

const str = (x: unknown, what: string): string => {
  if (typeof x !== 'string') throw new NotAnAnswer(`the upstream's ${what} is not a string`);
  return x;
};
const optId = (x: unknown): { id?: string } => (typeof x === 'string' && x.length <= 256 ? { id: x } : {});

/** One content part of an assistant message. */
export function readPart(p: unknown): Part {
  if (!isObj(p)) throw new NotAnAnswer('the upstream sent a content part that is not an object');
  if (p.type === 'output_text') return { type: 'output_text', text: str(p.text, 'output_text') };
  if (p.type === 'refusal') return { type: 'refusal', refusal: str(p.refusal, 'refusal') };
  throw new NotAnAnswer(`the upstream answered a ${JSON.stringify(String(p.type).slice(0, 32))} part, which is not signed`);
}

/** One output item; null for a reasoning item (not signed, not relayed); throws for any other. */
export function readItem(x: unknown): Item | null {
  if (!isObj(x)) throw new NotAnAnswer('the upstream sent an output item that is not an object');
  if (x.type === 'reasoning') return null;
  if (x.type === 'message') {
    if (x.role !== 'assistant') throw new NotAnAnswer('the upstream answered a role other than assistant');
    if (!Array.isArray(x.content)) throw new NotAnAnswer("the upstream's message content is not an array");
    return { type: 'message', ...optId(x.id), parts: x.content.map(readPart) };
  }
  if (x.type === 'function_call')
    return {
      type: 'function_call',
      ...optId(x.id),
      call_id: str(x.call_id, 'call_id'),
      name: str(x.name, 'function name'),
      arguments: str(x.arguments, 'function arguments'),
    };
  throw new NotAnAnswer(`the upstream answered a ${JSON.stringify(String(x.type).slice(0, 32))} item, which is not signed`);
}

/** An item as the client is shown it: its signed members, and the members its SDK types require. */
export function shownItem(it: Item, status: string): Obj {
  if (it.type === 'function_call')
    return { type: 'function_call', ...(it.id ? { id: it.id } : {}), call_id: it.call_id, name: it.name, arguments: it.arguments, status };
  return { type: 'message', ...(it.id ? { id: it.id } : {}), status, role: 'assistant', content: it.parts.map(shownPart) };
}

export function shownPart(p: Part): Obj {
  return p.type === 'output_text' ? { type: 'output_text', text: p.text, annotations: [] } : { type: 'refusal', refusal: p.refusal };
}

/** Whether two items say the same signed thing (their ids aside: an id is not signed). */
export function sameItem(a: Item, b: Item): boolean {
  if (a.type !== b.type) return false;
  if (a.type === 'function_call' && b.type === 'function_call')
    return a.call_id === b.call_id && a.name === b.name && a.arguments === b.arguments;
  const pa = (a as { parts: Part[] }).parts;
  const pb = (b as { parts: Part[] }).parts;
  return pa.length === pb.length && pa.every((p, i) => JSON.stringify(p) === JSON.stringify(pb[i]));
}

/**
 * Why the response ended, in chat's terms (so one answer signs alike by either API): `completed` is
 * `stop`, or `tool_calls` when it called a function; `incomplete` for max_output_tokens is `length`,
 * for anything else its reason as given. Any other status is not an answer.
 */
export function finishOf(response: Obj, items: readonly Item[]): string {
  if (response.status === 'completed') return items.some((i) => i.type === 'function_call') ? 'tool_calls' : 'stop';
  if (response.status === 'incomplete') {
    const reason = isObj(response.incomplete_details) ? response.incomplete_details.reason : undefined;
    if (typeof reason !== 'string' || reason === '') throw new NotAnAnswer('the upstream did not say why its response is incomplete');
    return reason === 'max_output_tokens' ? 'length' : reason;
  }
  throw new NotAnAnswer(`the upstream's response is ${JSON.stringify(String(response.status).slice(0, 32))}, not completed`);
}

/** The answer the items give, signed as a chat completion's message with the same pieces would be. */
export function signedItems(items: readonly Item[], finish: string): SignedAnswer {
  const g = new AnswerGatherer();
  let calls = 0;
  for (const it of items) {
    if (it.type === 'function_call') {
      g.add(
        {
          index: 0,
          delta: {
            tool_calls: [{ index: calls++, id: it.call_id, type: 'function', function: { name: it.name, arguments: it.arguments } }],
          },
        },
        'delta',
      );
      continue;
    }
    for (const p of it.parts) g.add({ index: 0, delta: p.type === 'output_text' ? { content: p.text } : { refusal: p.refusal } }, 'delta');
  }
  g.add({ index: 0, delta: {}, finish_reason: finish }, 'delta');
  return g.signed();
}

/** A whole response's output: its signed items, in order, reasoning left out. */
export function readOutput(response: Obj): Item[] {
  if (!Array.isArray(response.output)) throw new NotAnAnswer("the upstream's response output is not an array");
  return response.output.map(readItem).filter((i): i is Item => i !== null);
}
