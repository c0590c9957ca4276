// The fetch adapter: an app as `fetch(Request) -> Response` (the WHATWG pair), the handler
// Bun.serve, Deno.serve and service workers take, and what a test calls with no socket at all.
// It reads a request as the node:http adapter does (one path form, query parameters that are
// UTF-8, the 2 MB body bound, the client address after the trusted-proxy rule) and writes the same
// answer (nosniff, the request id, JSON bodies, server-sent events with the client's going told to
// the maker). What it cannot check: a runtime has already parsed the target into `Request.url`, so
// dot segments are gone before it sees them; node:http refuses those (WF-PATHS), and a proxy
// rule in front of another runtime must match on the normalised path.
import { MAX_BODY_BYTES } from '@svc/core';
import { requestId, withRequestId, type Logger } from '../log.js';
import { joinChunks } from './body.js';
import { errorResponse, HttpError } from './errors.js';
import { BAD_QUERY, BAD_TARGET, badQueryParameter, logRequest, parseTarget } from './node.js';
import { clientIp } from './ratelimit.js';
import type { AppRequest, AppResponse } from './types.js';

/**
 * Where a fetch handler learns the client's address: the runtime's, handed in per request.
 *
 * @example
 * ```ts
 * Bun.serve({ fetch: (req, server) => app.fetch(req, { remoteAddress: server.requestIP(req)?.address }) });
 * ```
 */
export interface FetchInfo {
  /** The peer address of the connection (Bun: `server.requestIP(req).address`; Deno: `info.remoteAddr.hostname`). */
  remoteAddress?: string;
}

/**
 * A `fetch(Request) -> Response` handler, as Bun.serve and Deno.serve take one.
 *
 * @example
 * ```ts
 * const handler: FetchHandler = createApp(deps).fetch;
 * Deno.serve((req, info) => handler(req, { remoteAddress: info.remoteAddr.hostname }));
 * ```
 */
export type FetchHandler = (request: Request, info?: FetchInfo) => Promise<Response>;

/**
 * How `fetchHandler` reads requests: where it logs, whose X-Forwarded-For it believes, the body bound.
 *
 * @example
 * ```ts
 * const options: FetchOptions = { log: jsonLogger('info'), trustedProxies: ['10.0.0.1'] };
 * ```
 */
export interface FetchOptions {
  log: Logger;
  /** Proxies whose X-Forwarded-For is believed (as SVC_TRUSTED_PROXIES). */
  trustedProxies?: string[];
  /** The body bound in bytes (default 2 MB, the spec's). */
  limit?: number;
}

const encoder = new TextEncoder();

/** Read `body` whole, refusing it past `limit` bytes (declared or as it arrives). */
async function readBody(request: Request, limit: number): Promise<Uint8Array> {
  const declared = Number(request.headers.get('content-length') ?? Number.NaN);
  if (Number.isFinite(declared) && declared > limit) throw new HttpError('too_large', `payload over ${limit} bytes`);
  if (!request.body) return new Uint8Array();
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = request.body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.length;
      if (total > limit) {
        void reader.cancel().catch(() => undefined);
        throw new HttpError('too_large', `payload over ${limit} bytes`);
      }
      chunks.push(value);
    }
  } catch (e) {
    if (e instanceof HttpError) throw e;
    throw new HttpError('invalid_request', `request body not received whole: ${e instanceof Error ? e.message : String(e)}`);
  }
  return joinChunks(chunks, total);
}

/** The body of a streamed answer: each chunk as the maker yields it; a cancel (the client went) aborts the maker. */
function eventStream(make: (closed: AbortSignal) => AsyncIterable<string>, log: Logger): ReadableStream<Uint8Array> {
  const gone = new AbortController();
  let it: AsyncIterator<string> | undefined;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        it ??= make(gone.signal)[Symbol.asyncIterator]();
        const { done, value } = await it.next();
        if (done) controller.close();
        else controller.enqueue(encoder.encode(value));
      } catch (e) {
        // The status line is sent: the only way left to say it failed is to cut the stream.
        log('stream_failed', { error: e instanceof Error ? e.message : String(e) });
        controller.error(e);
      }
    },
    async cancel() {
      gone.abort();
      await it?.return?.();
    },
  });
}

function toResponse(out: AppResponse, id: string, method: string, log: Logger): Response {
  const headers = new Headers({ 'x-content-type-options': 'nosniff', 'x-request-id': id, ...(out.headers ?? {}) });
  // A status without a body (204, 304) takes none; HEAD's headers are the pipeline's.
  const bodyless = out.status === 204 || out.status === 304 || method === 'HEAD';
  if (out.stream && !bodyless) return new Response(eventStream(out.stream, log), { status: out.status, headers });
  if (out.body === undefined || bodyless) return new Response(null, { status: out.status, headers });
  const payload =
    typeof out.body === 'string'
      ? encoder.encode(out.body)
      : out.body instanceof Uint8Array
        ? out.body
        : encoder.encode(JSON.stringify(out.body));
  if (!headers.has('content-type')) headers.set('content-type', 'application/json; charset=utf-8');
  headers.set('content-length', String(payload.length));
  return new Response(payload as Uint8Array<ArrayBuffer>, { status: out.status, headers });
}

/**
 * An app's `handle` as a `fetch(Request) -> Response` handler, with the node:http adapter's
 * request rules and one log line per request.
 *
 * @example
 * ```ts
 * const app = createApp(deps);
 * const res = await app.fetch(new Request('http://svc.example/healthz'));
 * console.log(res.status); // 200
 * ```
 */
export function fetchHandler(handle: (req: AppRequest) => Promise<AppResponse>, opts: FetchOptions): FetchHandler {
  const log = opts.log;
  return (request, info) => {
    const id = requestId(request.headers.get('x-request-id') ?? undefined);
    return withRequestId(id, async () => {
      const started = performance.now();
      let path = '?';
      let ip = 'unknown';
      let appReq: AppRequest | undefined;
      let out: AppResponse;
      try {
        const url = new URL(request.url);
        const raw = `${url.pathname}${url.search}`;
        const target = parseTarget(raw);
        if (!target) throw BAD_TARGET();
        path = target.path;
        const bad = badQueryParameter(raw);
        if (bad !== null) throw BAD_QUERY(bad);
        const headers: Record<string, string> = {};
        request.headers.forEach((v, k) => {
          headers[k] = v;
        });
        ip = clientIp(info?.remoteAddress, headers['x-forwarded-for'], opts.trustedProxies ?? []);
        let read = false;
        appReq = {
          method: request.method,
          path: target.path,
          query: target.query,
          headers,
          ip,
          body: () => {
            if (read) return Promise.reject(new HttpError('invalid_request', 'the body was already read'));
            read = true;
            return readBody(request, opts.limit ?? MAX_BODY_BYTES);
          },
          stream: async function* () {
            if (read) throw new HttpError('invalid_request', 'the body was already read');
            read = true;
            if (!request.body) return;
            for await (const chunk of request.body as unknown as AsyncIterable<Uint8Array>) yield chunk;
          },
        };
        out = await handle(appReq);
      } catch (e) {
        out = errorResponse(e, log, path);
      }
      logRequest(log, request.method, path, out.status, started, ip, appReq);
      return toResponse(out, id, request.method, log);
    });
  };
}
