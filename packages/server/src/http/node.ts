// The node:http adapter: turns IncomingMessage into AppRequest and AppResponse into bytes, logs one
// line per request, and closes the connection after refusing an oversized body.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { MAX_BODY_BYTES, SvcError } from '@svc/core';
import type { Logger } from '../log.js';
import { readLimited } from './body.js';
import { clientIp } from './ratelimit.js';
import type { AppRequest, AppResponse } from './types.js';

export function nodeHandler(handle: (req: AppRequest) => Promise<AppResponse>, opts: { trustedProxies: string[]; log: Logger; limit?: number }) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    const started = performance.now();
    const url = new URL(req.url ?? '/', 'http://localhost');
    const ip = clientIp(req.socket.remoteAddress, req.headers['x-forwarded-for'], opts.trustedProxies);
    let tooLarge = false;
    const appReq: AppRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: url.searchParams,
      headers: req.headers,
      ip,
      body: () =>
        readLimited(req, req.headers['content-length'], opts.limit ?? MAX_BODY_BYTES).catch((e: unknown) => {
          if (e instanceof SvcError && e.code === 'too_large') tooLarge = true;
          throw e;
        }),
    };
    handle(appReq)
      .then((out) => {
        const headers: Record<string, string> = { 'x-content-type-options': 'nosniff', ...(out.headers ?? {}) };
        let payload: string | undefined;
        if (out.body !== undefined) {
          payload = typeof out.body === 'string' ? out.body : JSON.stringify(out.body);
          headers['content-type'] ??= 'application/json; charset=utf-8';
        }
        // An unread oversized body is never drained: the connection is closed after the answer.
        if (tooLarge) headers.connection = 'close';
        res.writeHead(out.status, headers);
        res.end(payload);
        if (tooLarge) res.once('finish', () => req.destroy());
        opts.log('request', { method: appReq.method, path: appReq.path, status: out.status, ms: Math.round(performance.now() - started), ip });
      })
      .catch((e: unknown) => {
        opts.log('adapter_error', { path: appReq.path, error: e instanceof Error ? e.message : String(e) });
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
        res.end('{"error":"internal error"}');
      });
  };
}
