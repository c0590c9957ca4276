// The node:http adapter: turns IncomingMessage into AppRequest and AppResponse into bytes, logs one
// line per request. Everything from the socket to the response runs inside one error boundary: a
// request that cannot be parsed is a 400, and nothing a client sends can throw past this function.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { MAX_BODY_BYTES } from '@svc/core';
import { errorResponse, HttpError } from './errors.js';
import { requestId, withRequestId, type Logger } from '../log.js';
import { readLimited, type BodyBudget } from './body.js';
import { clientIp } from './ratelimit.js';
import { admitPipelined, sendDeadline } from './connections.js';
import type { AppRequest, AppResponse } from './types.js';

export interface AdapterOptions {
  trustedProxies: string[];
  log: Logger;
  limit?: number;
  /** After a 413, read and discard at most this many more bytes so the client can read the answer. */
  drainBytes?: number;
  /** ...and for at most this long. */
  drainMs?: number;
  /** True once shutdown began: answers then carry Connection: close. */
  closing?: () => boolean;
  /** Bytes of bodies held across all requests at once. */
  budget?: BodyBudget;
  /** An answer the client has not taken within this long (ms) closes the connection (default 10 s). */
  sendMs?: number;
}

const DRAIN_BYTES = 8 * 1024 * 1024;
const DRAIN_MS = 5_000;
const SEND_MS = 10_000;

// WF-PATHS: one path form, one value per query key (app.ts), only chunked (below).
/**
 * Path and query of a request target in origin-form (`/path?q`) or absolute-form
 * (`http://host/path`, RFC 9112 s.3.2.2); null for anything else, which is answered 400.
 */
export function parseTarget(raw: string | undefined): { path: string; query: URLSearchParams } | null {
  if (!raw) return null;
  const absolute = /^https?:\/\//i.test(raw);
  if (!absolute && (raw[0] !== '/' || raw.startsWith('//'))) return null;
  try {
    const url = absolute ? new URL(raw) : new URL(raw, 'http://localhost');
    // One path form: a target the URL parser would rewrite (dot segments, encoded dots, backslashes)
    // is refused, so no path rule in a proxy in front can be walked around.
    const given = absolute ? raw.replace(/^https?:\/\/[^/?#]*/i, '') || '/' : raw;
    const rawPath = given.split(/[?#]/, 1)[0]!;
    if (rawPath !== url.pathname || /%2e|%2f|%5c/i.test(rawPath)) return null;
    return { path: url.pathname, query: url.searchParams };
  } catch {
    return null;
  }
}

/**
 * The first query parameter whose name or value is not percent-encoded UTF-8, or null. The URL
 * parser would read `%FF` or an overlong `%C0%AF` as U+FFFD, a value the client never sent.
 */
export function badQueryParameter(raw: string | undefined): string | null {
  // A `%` not followed by two hex digits is no escape: the URL parser keeps it as it is, and so here.
  const q = (raw?.includes('?') ? raw.slice(raw.indexOf('?') + 1).split('#', 1)[0]! : '').replace(/%(?![0-9a-fA-F]{2})/g, '%25');
  for (const pair of q.split('&')) {
    if (!pair) continue;
    const eq = pair.indexOf('=');
    const [k, v] = eq < 0 ? [pair, ''] : [pair.slice(0, eq), pair.slice(eq + 1)];
    let name: string;
    try {
      name = decodeURIComponent(k.replace(/\+/g, ' '));
    } catch {
      return JSON.stringify(k.slice(0, 40));
    }
    try {
      decodeURIComponent(v.replace(/\+/g, ' '));
    } catch {
      return name.slice(0, 40);
    }
  }
  return null;
}

/** RFC 9112 s.6.1: the only transfer coding understood here is chunked, alone. */
function unsupportedCoding(te: string | undefined): boolean {
  return te !== undefined && te.trim().toLowerCase() !== 'chunked';
}

/** The one line each request gets, from either adapter: who asked what, the answer, how long it took. */
export function logRequest(log: Logger, method: string, path: string, status: number, started: number, ip: string, req?: AppRequest): void {
  log('request', {
    method,
    path,
    status,
    ms: Math.round(performance.now() - started),
    ip,
    ...(req?.principal !== undefined ? { token: req.principal } : {}),
  });
}

const NOT_IMPLEMENTED = () => new HttpError('not_implemented', 'only the chunked transfer coding is implemented');
// The request target is malformed: 400, not the 422 an invalid_request in a body gets.
export const BAD_TARGET = () => new HttpError('invalid_request', 'malformed request target', { status: 400 });
/** A query parameter that is not percent-encoded UTF-8 (`badQueryParameter` names it). */
export const BAD_QUERY = (name: string) => new HttpError('invalid_request', `query parameter ${name} is not valid UTF-8 (percent-encoded)`);

export function nodeHandler(handle: (req: AppRequest) => Promise<AppResponse>, opts: AdapterOptions) {
  const send = (req: IncomingMessage, res: ServerResponse, out: AppResponse, tooLarge: boolean, id: string): void => {
    const headers: Record<string, string> = { 'x-content-type-options': 'nosniff', 'x-request-id': id, ...(out.headers ?? {}) };
    let payload: string | Uint8Array | undefined;
    if (out.body !== undefined) {
      payload = typeof out.body === 'string' || out.body instanceof Uint8Array ? out.body : JSON.stringify(out.body);
      headers['content-type'] ??= 'application/json; charset=utf-8';
      headers['content-length'] = String(Buffer.byteLength(payload));
    }
    if (tooLarge || opts.closing?.()) headers.connection = 'close';
    if (out.stream && !tooLarge) {
      res.writeHead(out.status, headers);
      void streamTo(res, out.stream, opts.log);
      return;
    }
    if (tooLarge) halfCloseOnFinish(req.socket);
    res.writeHead(out.status, headers);
    res.end(payload);
    if (tooLarge) drain(req, res, opts.drainBytes ?? DRAIN_BYTES, opts.drainMs ?? DRAIN_MS);
    // A client that does not read its answers holds their bytes here: it gets a deadline.
    else if (!res.writableFinished)
      sendDeadline(req.socket, res, opts.sendMs ?? SEND_MS, () =>
        opts.log('send_timeout', { ms: opts.sendMs ?? SEND_MS, queued: req.socket.writableLength }),
      );
  };

  // Every log line this request causes, here or deep in a handler, carries its id (AsyncLocalStorage).
  return (req: IncomingMessage, res: ServerResponse): void => {
    // Pipelined requests past the bound: the client is not reading its answers; nothing more is parsed.
    if (!admitPipelined(req.socket, (fn) => res.once('close', fn))) return;
    const id = requestId(req.headers['x-request-id']);
    withRequestId(id, () => serve(req, res, id));
  };

  function serve(req: IncomingMessage, res: ServerResponse, id: string): void {
    const started = performance.now();
    let path = '?';
    let ip = 'unknown';
    let tooLarge = false;
    let appReq: AppRequest | undefined;
    let streamed = false;
    const done = (out: AppResponse) => {
      // An answer before the streamed body ended (a refusal on its header): the rest is not read.
      if (streamed && !req.readableEnded) tooLarge = true;
      send(req, res, out, tooLarge, id);
      logRequest(opts.log, req.method ?? '?', path, out.status, started, ip, appReq);
    };
    // Past the app's own boundary (a bug in this adapter): still one error answer, the connection closed.
    const fail = (e: unknown) => {
      if (res.headersSent) {
        opts.log('adapter_error', { path, error: e instanceof Error ? e.message : String(e) });
        res.destroy();
        return;
      }
      tooLarge = true;
      done(errorResponse(e, opts.log, path));
    };
    try {
      ip = clientIp(req.socket.remoteAddress, req.headers['x-forwarded-for'], opts.trustedProxies);
      const target = parseTarget(req.url);
      if (!target) {
        req.resume();
        done(errorResponse(BAD_TARGET(), opts.log, path));
        return;
      }
      path = target.path;
      const badParam = badQueryParameter(req.url);
      if (badParam !== null) {
        req.resume();
        done(errorResponse(BAD_QUERY(badParam), opts.log, path));
        return;
      }
      if (unsupportedCoding(req.headers['transfer-encoding'])) {
        tooLarge = true; // closes the connection: the body's framing is not understood
        done(errorResponse(NOT_IMPLEMENTED(), opts.log, path));
        return;
      }
      // What this request's body holds of the shared budget, given back once its answer is sent.
      let held = 0;
      const budget = opts.budget;
      const hold = budget && {
        fits: (n: number) => budget.fits(n),
        take: (n: number) => {
          if (!budget.take(n)) return false;
          held += n;
          return true;
        },
      };
      if (budget) res.once('close', () => budget.release(held));
      appReq = {
        method: req.method ?? 'GET',
        path: target.path,
        query: target.query,
        // node:http keeps the first Authorization and drops the rest: the distinct values say there
        // were several, which the issuing listener refuses rather than reading one of them.
        headers:
          (req.headersDistinct.authorization?.length ?? 0) > 1
            ? { ...req.headers, authorization: req.headersDistinct.authorization }
            : req.headers,
        ip,
        stream: () => {
          streamed = true;
          // Not destroyed when the reader stops early: the answer still has to go out on this socket.
          return req.iterator({ destroyOnReturn: false });
        },
        body: () =>
          readLimited(req, req.headers['content-length'], opts.limit ?? MAX_BODY_BYTES, hold || undefined).catch((e: unknown) => {
            // The rest of a refused body is not read: the connection closes after the answer.
            if (e instanceof HttpError && (e.code === 'too_large' || e.code === 'unavailable')) tooLarge = true;
            throw e;
          }),
      };
      handle(appReq).then(done).catch(fail);
    } catch (e) {
      fail(e);
    }
  }
}

/**
 * Write a streamed answer chunk by chunk, waiting for the client to take each one (a client that
 * stops reading holds the maker, not memory); the maker is told when the client goes.
 */
async function streamTo(res: ServerResponse, make: (closed: AbortSignal) => AsyncIterable<string>, log: Logger): Promise<void> {
  const gone = new AbortController();
  res.once('close', () => gone.abort());
  try {
    for await (const chunk of make(gone.signal)) {
      if (gone.signal.aborted) break;
      if (!res.write(chunk))
        await new Promise<void>((r) => {
          const go = () => {
            res.off('drain', go);
            res.off('close', go);
            r();
          };
          res.once('drain', go);
          res.once('close', go);
        });
    }
    res.end();
  } catch (e) {
    // The status line is sent: the only way left to say it failed is to cut the stream.
    log('stream_failed', { error: e instanceof Error ? e.message : String(e) });
    res.destroy();
  }
}

/**
 * After an answer with Connection: close, node:http destroys the socket as soon as the answer is
 * written (`destroySoon`). A socket closed with bytes of the refused body still unread sends a
 * reset, and a client still uploading then sees EPIPE or ECONNRESET instead of its 413 (35 of 40
 * fetches of 3 MiB to `svc serve` did). Here it only half-closes: the answer and a FIN go out, and
 * `drain` reads on and closes the socket once the body ends or its bound is reached.
 */
function halfCloseOnFinish(socket: Socket): void {
  socket.destroySoon = function (this: Socket) {
    if (this.writable) this.end();
  };
}

/**
 * Read and discard what a client still sends after its upload was refused, up to a bound, so that
 * it reads the answer (see halfCloseOnFinish). The socket is destroyed when the body ends, when it
 * errs, past `maxBytes`, or after `maxMs`, whichever comes first, and never before the answer is out.
 */
function drain(req: IncomingMessage, res: ServerResponse, maxBytes: number, maxMs: number): void {
  let seen = 0;
  // Held here: node:http detaches the socket from the request once the answer is out, and the
  // body's end or error can come after that.
  const socket = req.socket;
  const cut = () => {
    clearTimeout(timer);
    req.off('data', onData);
    if (res.writableFinished) socket.destroy();
    else res.once('finish', () => socket.destroy());
  };
  const onData = (c: Uint8Array) => {
    seen += c.length;
    if (seen > maxBytes) cut();
  };
  const timer = setTimeout(cut, maxMs);
  timer.unref();
  req.on('data', onData);
  if (req.readableEnded) {
    cut();
    return;
  }
  req.once('end', cut);
  req.once('error', cut);
  req.resume();
}
