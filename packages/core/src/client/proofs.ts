// Proofs on the path a client already takes (issue 52): every OpenAI client accepts a custom fetch
// (the openai package's `fetch`, LangChain's `configuration.fetch`), so a fetch that keeps a copy
// of each proof it sees reaches them all without changing their loops. It is handed the fetch it
// wraps (no global is looked up) and reads a copy of each answer, never the caller's.
import { namesFor } from '../names.js';
import type { ProofBundle } from '../issue/bundles.js';

// The few members of the platform's fetch types used here, typed structurally: the core compiles
// without DOM or Node types (globals.d.ts), and any runtime's fetch satisfies these.
interface Reader {
  read(): Promise<{ done: boolean; value?: Uint8Array }>;
}
interface Body {
  tee(): [Body, Body];
  getReader(): Reader;
}
interface FetchResponse {
  readonly body: Body | null;
  readonly headers: { get(name: string): string | null };
  readonly status: number;
  readonly statusText: string;
}
type ResponseConstructor = new (body: Body, init: { status: number; statusText: string; headers: unknown }) => FetchResponse;
/**
 * Any runtime's fetch, or a client's: what proofFetch wraps and hands back with the same signature.
 *
 * @example
 * ```ts
 * const f: FetchLike = fetch;
 * ```
 */
// biome-ignore lint/suspicious/noExplicitAny: a fetch of any runtime's signature is wrapped as it is
export type FetchLike = (...args: any[]) => Promise<any>;

/**
 * A fetch for an OpenAI client that collects the proofs of the answers it carries.
 *
 * @example
 * ```ts
 * const captured = proofFetch(fetch);
 * const client = new OpenAI({ baseURL, apiKey, fetch: captured.fetch });
 * await client.chat.completions.create({ model, messages });
 * const proof = (await captured.settled()).at(-1); // the answer's ProofBundle
 * ```
 */
export interface ProofCapture<F extends FetchLike = FetchLike> {
  /** Pass this to the client. */
  fetch: F;
  /** The proofs seen so far, in the order their answers finished. */
  proofs: ProofBundle[];
  /** The proofs, once every answer fetched so far has been read to its end. */
  settled(): Promise<ProofBundle[]>;
}

/**
 * The proof member (`<service>_proof`) of a parsed completion, chunk or Responses API response,
 * when it carries one; of a streamed Responses event, its response's (the front puts the proof on
 * `response.completed` and `response.incomplete`).
 *
 * @example
 * ```ts
 * const completion = await client.chat.completions.create({ model: 'seat-1', messages });
 * const proof = proofOf(completion); // ProofBundle | undefined
 * for await (const event of await client.responses.create({ model: 'seat-1', input: 'Hi', stream: true }))
 *   if (event.type === 'response.completed') console.log(proofOf(event)?.answer);
 * ```
 */
export function proofOf(value: unknown, service?: string): ProofBundle | undefined {
  const member = `${namesFor(service).service}_proof`;
  if (typeof value !== 'object' || value === null) return undefined;
  const v = value as Record<string, unknown>;
  if (!Object.hasOwn(v, member)) {
    const ended = v.type === 'response.completed' || v.type === 'response.incomplete';
    return ended && typeof v.response === 'object' && v.response !== null ? proofOf(v.response, service) : undefined;
  }
  const p = v[member];
  return typeof p === 'object' && p !== null ? (p as ProofBundle) : undefined;
}

async function readAll(body: Body, onEvent: (data: string) => void, text = false): Promise<void> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { done, value } = await reader.read();
    buffer += done ? decoder.decode() : decoder.decode(value, { stream: true });
    if (text) {
      if (done) onEvent(buffer);
      if (done) return;
      continue;
    }
    // The front writes each event as `data:` lines and a blank line, with LF line ends.
    for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
      const lines = buffer.slice(0, end).split('\n');
      buffer = buffer.slice(end + 2);
      onEvent(
        lines
          .filter((l) => l.startsWith('data:'))
          .map((l) => l.slice(5).replace(/^ /, ''))
          .join('\n'),
      );
    }
    if (done) return;
  }
}

/**
 * Wrap `fetchImpl` so that every proof in the answers it fetches (a whole completion's member, or
 * a stream's proof chunk) is collected. The caller's response is untouched: the wrapper reads a
 * tee of its body.
 *
 * @example
 * ```ts
 * const captured = proofFetch(fetch);
 * const llm = new ChatOpenAI({ model: 'seat-1', apiKey, configuration: { baseURL, fetch: captured.fetch } });
 * await llm.invoke('Capital of France?');
 * const [proof] = await captured.settled();
 * ```
 */
export function proofFetch<F extends FetchLike>(fetchImpl: F, opts: { service?: string } = {}): ProofCapture<F> {
  const ResponseCtor = (globalThis as unknown as { Response?: ResponseConstructor }).Response;
  if (!ResponseCtor) throw new TypeError('proofFetch needs the platform Response class (fetch)');
  const proofs: ProofBundle[] = [];
  const pending = new Set<Promise<void>>();
  const keep = (data: string) => {
    if (data === '' || data === '[DONE]') return;
    try {
      const p = proofOf(JSON.parse(data), opts.service);
      if (p) proofs.push(p);
    } catch {
      // Not JSON: not a proof. The client reads its own copy and decides what it is.
    }
  };
  const wrapped = async (...args: unknown[]) => {
    const res = (await fetchImpl(...args)) as FetchResponse;
    const type = res.headers.get('content-type') ?? '';
    if (!res.body || !(type.includes('json') || type.includes('event-stream'))) return res;
    const [mine, theirs] = res.body.tee();
    const stream = type.includes('event-stream');
    const work = readAll(mine, keep, !stream).catch(() => undefined);
    pending.add(work);
    void work.finally(() => pending.delete(work));
    return new ResponseCtor(theirs, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
  return {
    fetch: wrapped as F,
    proofs,
    settled: async () => {
      while (pending.size > 0) await Promise.all([...pending]);
      return proofs;
    },
  };
}
