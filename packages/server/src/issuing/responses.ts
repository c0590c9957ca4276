// POST /v1/responses: the Responses API on the private listener, stateless, forwarded to the seat's
// `<endpoint>/responses`. The request is bound by the rule chat completions use (front-request.ts);
// the answer is read by response-shape.ts and signed as the same pieces would be in a chat
// completion. Plain, the response comes back with its proof member; streamed, its typed events are
// relayed as parsed and the proof rides the `response.completed` (or `response.incomplete`) event's
// response, which is what the SDKs' stream helpers return as the final response.
import type { ProofBundle } from '@svc/core/issue';
import { HttpError } from '../http/errors.js';
import type { AppRequest, AppResponse } from '../http/types.js';
import { NotAnAnswer } from './answer-shape.js';
import { bindingOf, RESPONSES_CONTROL_MEMBERS, refuseClientWrittenAnswers, responsesMessages, type Question } from './front-request.js';
import { finishOf, type Item, readItem, readOutput, readPart, sameItem, shownItem, shownPart, signedItems } from './response-shape.js';
import { sseEvent } from './sse.js';
import {
  answeringModel,
  callUpstream,
  deliver,
  checkDepth,
  eventObject,
  type FrontDeps,
  inputFor,
  type ReadStep,
  seatOf,
  type StreamReader,
  StreamModel,
  type Upstream,
} from './upstream.js';

type Obj = Record<string, unknown>;
const isObj = (x: unknown): x is Obj => typeof x === 'object' && x !== null && !Array.isArray(x);

/** The response as the client is shown it: the checked items in place of the upstream's output. */
function shownResponse(response: Obj, items: readonly Item[], proofMember: string): Obj {
  if (Object.hasOwn(response, proofMember)) throw new NotAnAnswer('the upstream sent a response carrying a proof member');
  // output_text is the SDKs' own join of the items' text: an upstream's would be shown unchecked.
  const { output_text: _, ...rest } = response;
  const status = response.status === 'completed' ? 'completed' : 'incomplete';
  return { ...rest, output: items.map((i) => shownItem(i, status)) };
}

/**
 * POST /v1/responses on the private listener.
 *
 * @example
 * ```ts
 * const res = await responses(req, { model: 'seat-1', input: 'Capital of France?' }, deps);
 * ```
 */
export async function responses(req: AppRequest, body: unknown, d: FrontDeps): Promise<AppResponse> {
  if (!isObj(body)) throw new HttpError('invalid_request', 'the body must be a response request object');
  checkDepth(body);
  if (typeof body.model !== 'string' || body.model === '') throw new HttpError('invalid_request', 'model must name a council seat');
  if (body.stream !== undefined && typeof body.stream !== 'boolean') throw new HttpError('invalid_request', 'stream must be a boolean');
  const messages = responsesMessages(body);
  refuseClientWrittenAnswers(body, messages);
  const q = bindingOf(body, messages, RESPONSES_CONTROL_MEMBERS);
  const seat = seatOf(d, body.model);
  const proofMember = `${d.service}_proof`;
  const deadline = AbortSignal.timeout(d.upstreamMs ?? 120_000);
  // Stateless: nothing the upstream keeps can be referred to later, here or there.
  const res = await callUpstream(seat.responses, seat, { ...body, store: false }, deadline, d.log, req.principal);
  return deliver(
    res,
    {
      url: seat.responses,
      deadline,
      proofMember,
      front: 'responses',
      what: 'a response',
      stream: body.stream === true,
      whole: (response) => {
        const items = readOutput(response);
        const input = inputFor(signedItems(items, finishOf(response, items)), answeringModel(response.model, seat), q);
        return { shown: shownResponse(response, items, proofMember), input };
      },
      reader: () => new ResponseEvents(q, seat, proofMember),
    },
    d,
    req.principal,
  );
}

/** An output item being streamed, at its upstream index; null slots are reasoning, not relayed. */
interface Slot {
  item: Item;
  shownIndex: number;
  /** Parts whose content_part.done came. */
  partsDone: number;
  done: boolean;
}

const LIFECYCLE = new Set(['response.created', 'response.in_progress', 'response.queued']);
const REASONING = /^response\.reasoning(_text|_summary_part|_summary_text)\.(delta|done|added)$/;

/**
 * The typed events of a streamed response, read in order (wire-format s.15.6): items and their
 * parts one after another, each delta to the part last added, each `.done` equal to what its deltas
 * made, the final response's items equal to the streamed ones. Relayed as parsed, with reasoning
 * and annotations left out and output indexes counted over what is relayed.
 */
class ResponseEvents implements StreamReader {
  private started = false;
  private readonly slots: (Slot | null)[] = [];
  private shown = 0;
  private readonly model = new StreamModel();

  constructor(
    private readonly q: Question | null,
    private readonly seat: Upstream,
    private readonly proofMember: string,
  ) {}

  failure(message: string): string {
    const error = { message, type: 'upstream_error', code: 'bad_gateway', param: null };
    // `error` beside the Responses error event's own members: the SDKs throw on it.
    return sseEvent({ type: 'error', code: 'bad_gateway', message, param: null, error }, 'error');
  }

  read(ev: { event?: string | undefined; data: string }): ReadStep {
    const p = eventObject(ev.data, this.proofMember);
    const type = p.type;
    if (typeof type !== 'string') throw new NotAnAnswer('the upstream sent an event without a type');
    // The SDKs read the data's type; a reader of the event stream reads its name: they must agree.
    if (ev.event !== undefined && ev.event !== type) throw new NotAnAnswer('the upstream sent an event whose name is not its type');
    const out = (data: Obj) => ({ relay: [sseEvent(data, type)] });
    if (LIFECYCLE.has(type)) {
      if (type === 'response.created' ? this.started : !this.started) throw new NotAnAnswer(`the upstream sent ${type} out of order`);
      this.started = true;
      const r = p.response;
      if (!isObj(r) || !Array.isArray(r.output) || r.output.length > 0)
        throw new NotAnAnswer(`the upstream's ${type} does not carry an empty response`);
      this.model.add(r.model);
      return out({ ...p, response: shownResponse(r, [], this.proofMember) });
    }
    if (!this.started) throw new NotAnAnswer('the upstream did not begin with response.created');
    if (type === 'keepalive') return { relay: [] };
    if (type === 'response.completed' || type === 'response.incomplete') return this.finish(p, type);
    if (type === 'response.output_item.added') return this.added(p, type);
    const slot = this.slotOf(p.output_index);
    if (REASONING.test(type) || type === 'response.output_text.annotation.added') {
      // Not signed, so not shown; they must still name an item the stream has.
      if (REASONING.test(type) && slot !== null) throw new NotAnAnswer('the upstream sent reasoning into an answer item');
      return { relay: [] };
    }
    if (slot === null && type === 'response.output_item.done') {
      if (readItem(p.item) !== null) throw new NotAnAnswer('the upstream finished a reasoning item as another kind');
      return { relay: [] };
    }
    if (slot === null || slot.done) throw new NotAnAnswer(`the upstream sent ${type} for an item it cannot have`);
    const renumbered = { ...p, output_index: slot.shownIndex };
    const it = slot.item;
    if (type === 'response.output_item.done') {
      const item = readItem(p.item);
      if (item === null || !sameItem(item, it) || (it.type === 'message' && slot.partsDone !== it.parts.length))
        throw new NotAnAnswer('the upstream finished an item unlike the one it streamed');
      slot.done = true;
      return out({ ...renumbered, item: shownItem(it, 'completed') });
    }
    if (it.type === 'function_call') {
      if (type === 'response.function_call_arguments.delta') it.arguments += this.text(p.delta);
      else if (type !== 'response.function_call_arguments.done' || p.arguments !== it.arguments)
        throw new NotAnAnswer(`the upstream sent ${type} that does not fit its function call`);
      return out(renumbered);
    }
    if (type === 'response.content_part.added') {
      if (p.content_index !== it.parts.length || slot.partsDone !== it.parts.length)
        throw new NotAnAnswer('the upstream added a content part out of order');
      const part = readPart(p.part);
      if ((part.type === 'output_text' ? part.text : part.refusal) !== '') throw new NotAnAnswer('a content part must begin empty');
      it.parts.push(part);
      return out({ ...renumbered, part: shownPart(part) });
    }
    // Every other event is about the part last added, which is still open.
    const part = it.parts[it.parts.length - 1];
    if (!part || p.content_index !== it.parts.length - 1 || slot.partsDone === it.parts.length)
      throw new NotAnAnswer(`the upstream sent ${type} for a part it cannot have`);
    const text = part.type === 'output_text' ? part.text : part.refusal;
    if (type === 'response.output_text.delta' && part.type === 'output_text') part.text += this.text(p.delta);
    else if (type === 'response.refusal.delta' && part.type === 'refusal') part.refusal += this.text(p.delta);
    else if (type === 'response.output_text.done' && part.type === 'output_text') {
      if (p.text !== text) throw new NotAnAnswer("the upstream's output_text.done is not what its deltas said");
    } else if (type === 'response.refusal.done' && part.type === 'refusal') {
      if (p.refusal !== text) throw new NotAnAnswer("the upstream's refusal.done is not what its deltas said");
    } else if (type === 'response.content_part.done') {
      if (JSON.stringify(readPart(p.part)) !== JSON.stringify(part))
        throw new NotAnAnswer("the upstream's content_part.done is not what it streamed");
      slot.partsDone++;
      return out({ ...renumbered, part: shownPart(part) });
    } else throw new NotAnAnswer(`the upstream sent ${type}, which this front does not read`);
    return out(renumbered);
  }

  private text(x: unknown): string {
    if (typeof x !== 'string') throw new NotAnAnswer('the upstream sent a delta that is not a string');
    return x;
  }

  /** The slot an event names: an index the stream has added (null for a reasoning item). */
  private slotOf(index: unknown): Slot | null {
    if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= this.slots.length)
      throw new NotAnAnswer('the upstream sent an event for an output item it did not add');
    return this.slots[index]!;
  }

  private added(p: Obj, type: string): ReadStep {
    if (p.output_index !== this.slots.length) throw new NotAnAnswer('the upstream added an output item out of order');
    if (this.slots.some((s) => s !== null && !s.done)) throw new NotAnAnswer('the upstream began an item before finishing the last');
    const item = readItem(p.item);
    if (item === null) {
      this.slots.push(null);
      return { relay: [] };
    }
    if (item.type === 'message' && item.parts.length > 0) throw new NotAnAnswer('a message item must begin with no content');
    const slot: Slot = { item, shownIndex: this.shown++, partsDone: 0, done: false };
    this.slots.push(slot);
    return { relay: [sseEvent({ ...p, output_index: slot.shownIndex, item: shownItem(item, 'in_progress') }, type)] };
  }

  private finish(p: Obj, type: string): ReadStep {
    const r = p.response;
    if (!isObj(r)) throw new NotAnAnswer(`the upstream's ${type} carries no response`);
    if ((type === 'response.completed') !== (r.status === 'completed')) throw new NotAnAnswer(`the upstream's ${type} has another status`);
    const streamed = this.slots.filter((s): s is Slot => s !== null);
    if (streamed.some((s) => !s.done)) throw new NotAnAnswer('the upstream finished its response before its items');
    const final = readOutput(r);
    const items = streamed.map((s) => s.item);
    if (final.length !== items.length || final.some((f, i) => !sameItem(f, items[i]!)))
      throw new NotAnAnswer("the upstream's final response is not what it streamed");
    // The final response is the SDKs' final response: it names the model the lifecycle events did.
    this.model.add(r.model);
    const shown = shownResponse(r, items, this.proofMember);
    return {
      sign: inputFor(signedItems(items, finishOf(r, items)), this.model.answering(this.seat), this.q),
      after: (bundle: ProofBundle) => [sseEvent({ ...p, response: { ...shown, [this.proofMember]: bundle } }, type)],
    };
  }
}
