// svc serve's HTTP application: every route group mounted on the one pipeline, with this
// server's rate limits, CORS and metrics. No socket code lives here (http/node.ts adapts it).
import { keysHandlers } from './api/keys/handlers.js';
import { KEYS_ROUTES } from './api/keys/routes.js';
import { ledgerHandlers } from './api/ledger/handlers.js';
import { LEDGER_ROUTES } from './api/ledger/routes.js';
import { opsHandlers } from './api/ops/handlers.js';
import { openApiDocument } from './openapi.js';
import { OPS_ROUTES, PAGE_ROUTES } from './api/ops/routes.js';
import { scittHandlers } from './api/scitt/handlers.js';
import { SCITT_ROUTES } from './api/scitt/routes.js';
import { tlogHandlers } from './api/tlog/handlers.js';
import { TLOG_ROUTES } from './api/tlog/routes.js';
import { verifyHandlers } from './api/verify/handlers.js';
import { VERIFY_ROUTES } from './api/verify/routes.js';
import { witnessHandlers } from './api/witness/handlers.js';
import { WITNESS_ROUTES } from './api/witness/routes.js';
import type { AppDeps } from './api/deps.js';
import { limitKey } from './http/address.js';
import { createPipeline, mount } from './http/pipeline.js';
import { RateLimiter } from './http/ratelimit.js';
import { fetchHandler, type FetchHandler } from './http/fetch.js';
import type { AppRequest, AppResponse } from './http/types.js';
import type { Group } from './routes.js';

export type { AppDeps } from './api/deps.js';

/**
 * An app in both of its forms: `handle` (an AppRequest to an AppResponse, what the node:http
 * adapter serves) and `fetch` (a WHATWG Request to a Response, what Bun.serve, Deno.serve and a
 * test with no socket call).
 *
 * @example
 * ```ts
 * const app: App = createApp(deps);
 * const res = await app.fetch(new Request('http://svc.example/healthz'));
 * console.log(res.status); // 200
 * ```
 */
export interface App {
  handle(req: AppRequest): Promise<AppResponse>;
  fetch: FetchHandler;
}

/**
 * The server's request handler, independent of node:http: `handle` takes an AppRequest and
 * returns an AppResponse; `fetch` takes a Request and returns a Response.
 *
 * @example
 * ```ts
 * const app = createApp(deps);
 * console.log((await app.fetch(new Request('http://svc.example/healthz'))).status); // 200
 * const res = await app.handle({
 *   method: 'GET',
 *   path: '/healthz',
 *   query: new URLSearchParams(),
 *   headers: {},
 *   ip: '127.0.0.1',
 *   body: async () => new Uint8Array(),
 * });
 * console.log(res.status); // 200
 * ```
 */
export function createApp(d: AppDeps): App {
  const limiter = new RateLimiter(d.now);
  const limit = d.limit ?? ((ip: string, group: Group, perMinute: number) => limiter.take(ip, group, perMinute));
  let openApiText: string | undefined;
  const ops = opsHandlers(d, () => (openApiText ??= JSON.stringify(openApiDocument(d.names.service, d.version))));
  const { handle } = createPipeline({
    routes: [
      ...mount(VERIFY_ROUTES, verifyHandlers(d)),
      ...mount(KEYS_ROUTES, keysHandlers(d)),
      ...mount(LEDGER_ROUTES, ledgerHandlers(d)),
      ...mount(TLOG_ROUTES, tlogHandlers(d)),
      ...mount(SCITT_ROUTES, scittHandlers(d)),
      ...mount(
        WITNESS_ROUTES,
        witnessHandlers(() => d.witness),
      ),
      ...mount(OPS_ROUTES, ops),
      ...mount(PAGE_ROUTES, ops),
    ],
    log: d.log,
    cors: true,
    limit: (req: AppRequest, group: Group) => {
      const perMinute = group === 'none' ? 0 : (d.cfg.rate[group] ?? 0);
      return perMinute > 0 ? limit(limitKey(req.ip, d.cfg.ipv6Prefix), group, perMinute) : 0;
    },
    ...(d.metrics ? { observe: d.metrics.request.bind(d.metrics) } : {}),
  });
  return { handle, fetch: fetchHandler(handle, { log: d.log, trustedProxies: d.cfg.trustedProxies }) };
}
