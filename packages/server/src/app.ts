// The HTTP application as a plain function from AppRequest to AppResponse: routing, CORS, rate
// limits, caching headers and error mapping. No socket code lives here.
import { checkOrg, toHex, type Names } from '@svc/core';
import { parseTilePath, parseVkey } from '@svc/core/tlog';
import { HttpError, refusalOf } from './http/errors.js';
import type { Config } from './config.js';
import type { Keyring } from './keys/keyring.js';
import { evidenceSigner, modelPlaneKeys, pubkeyResponse } from './keys/publish.js';
import type { CouncilProbe } from './council/probe.js';
import type { LedgerApi } from './ledger/api.js';
import type { Witness } from './witness/witness.js';
import type { Logger } from './log.js';
import { openApiDocument } from './openapi.js';
import { buildCbom, buildCycloneDx, type CbomKey } from './cbom.js';
import { ROLES, type Role } from './keys/keyring.js';
import type { Executor, PoolStats } from './pool/pool.js';
import type { Metrics } from './http/metrics.js';
import type { TaskResult } from './pool/tasks.js';
import { RateLimiter } from './http/ratelimit.js';
import { limitKey } from './http/address.js';
import { pageHeaders } from './http/page-headers.js';
import { json, type AppRequest, type AppResponse, type Handler } from './http/types.js';
import { ROUTES, UNDOCUMENTED, type Group, type OperationId, type RouteSpec } from './routes.js';

/**
 * Everything the HTTP app is built from: configuration, keys, ledger, executor, limiter, metrics, logger. startServer builds them; tests pass their own.
 *
 * @example
 * ```ts
 * const app = createApp(deps satisfies AppDeps);
 * ```
 */
export interface AppDeps {
  cfg: Config;
  names: Names;
  ring: Keyring;
  executor: Executor;
  council: Pick<CouncilProbe, 'health'>;
  ledger: LedgerApi | null;
  log: Logger;
  version: string;
  /** The verifier page served at GET /, when built. */
  page?: () => string | null;
  now?: () => number;
  /** Prometheus metrics (SVC_METRICS); /metrics is 404 without. */
  metrics?: Pick<Metrics, 'request' | 'text'> | null;
  /**
   * The rate limiter's answer (0: allowed, else seconds to wait; null: it could not decide, and the
   * request is refused with 503, never let through). Default: this process's own limiter; a cluster
   * process asks its primary's, so one client has one limit across processes.
   */
  limit?: (key: string, group: Group, perMinute: number) => number | null | Promise<number | null>;
  /** The verification pool's state, for readiness and metrics. */
  poolStats?: () => PoolStats | null;
  /** A tlog-witness served under /api/transparency/witness/ (SVC_WITNESS_SERVE_POLICY). */
  witness?: Witness | null;
  /** Which implementation computes each algorithm, for the CBOM (default: noble for all). */
  cryptoBackends?: Record<string, string>;
}

interface Route {
  group: Group;
  cache?: string;
  run: Handler;
}

const CORS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET, POST, OPTIONS',
  'access-control-allow-headers': 'content-type',
  'access-control-max-age': '86400',
};
const JSON_TYPE = 'application/json; charset=utf-8';
const CYCLONEDX_TYPE = 'application/vnd.cyclonedx+json';
const NO_STORE = { 'cache-control': 'no-store' };
const TEXT_TYPE = 'text/plain; charset=utf-8';
const IMMUTABLE = 'public, max-age=31536000, immutable';
const HOUR_CACHE = 'public, max-age=3600';
/** Tile paths are relative to the log's prefix (tlog-tiles): `tile/...` under it. */
const TLOG_PREFIX = '/api/transparency/tlog/';
/** Paths with a CORS preflight: those the route table gives one. */
const PREFLIGHT = new Set<string>((ROUTES as readonly RouteSpec[]).filter((r) => r.preflight).map((r) => r.path));

/**
 * A path template's matcher: `{name}` is one segment, or the rest of the path (slashes included)
 * for the last parameter of a route marked `rest`.
 */
function templateMatcher(r: RouteSpec): RegExp {
  const parts = r.path.split(/(\{[a-z_]+\})/);
  const last = parts.length - 2;
  return new RegExp(
    `^${parts.map((p, i) => (p.startsWith('{') ? (r.rest && i === last ? '(.+)' : '([^/]+)') : p.replace(/[.*+?^$()|[\]\\]/g, '\\$&'))).join('')}$`,
  );
}

function intParam(q: URLSearchParams, name: string, required: boolean): number | undefined {
  const v = q.get(name);
  if (v === null || v === '') {
    if (required) throw new HttpError('out_of_range', `query parameter ${name} is required`);
    return undefined;
  }
  if (!/^\d{1,16}$/.test(v)) throw new HttpError('out_of_range', `${name} must be a positive integer`);
  return Number(v);
}

/**
 * The server's request handler, independent of node:http: takes an AppRequest, returns an AppResponse.
 *
 * @example
 * ```ts
 * const app = createApp(deps);
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
export function createApp(d: AppDeps) {
  const limiter = new RateLimiter(d.now);
  const limit = d.limit ?? ((ip: string, group: Group, perMinute: number) => limiter.take(ip, group, perMinute));
  const now = d.now ?? Date.now;
  const cbomSerial = crypto.randomUUID();
  const cbomTime = new Date(now()).toISOString();
  // Task results arrive as JSON text; refusals keep their status, and overload says when to retry.
  const settled = (r: TaskResult): AppResponse => {
    if (r.ok) return { status: 200, body: r.json, headers: { 'content-type': JSON_TYPE } };
    const e = new HttpError(r.code, r.message);
    return {
      status: e.status,
      body: e.toJSON(),
      headers: r.retryAfter !== undefined ? { ...NO_STORE, 'retry-after': String(r.retryAfter) } : {},
    };
  };
  const ledger = () => d.ledger;
  const witness = (): Witness => {
    if (!d.witness) throw new HttpError('not_found', 'this server is not a witness (SVC_WITNESS_SERVE_POLICY)');
    return d.witness;
  };
  // The tiled log exists only with the ledger: without it there is nothing to serve (404).
  const tlog = (): LedgerApi => {
    if (!d.ledger) throw new HttpError('not_found', 'the ledger is off on this server');
    return d.ledger;
  };
  // A proof has no {enabled:false} form (interface.md gives it to the head and history only): with
  // the ledger off, proof requests are 503.
  const on = (): LedgerApi => {
    if (!d.ledger) throw new HttpError('unavailable', 'the ledger is off on this server');
    return d.ledger;
  };
  // The log's keys are listed with their vkeys (what C2SP clients are configured with).
  const vkeyOf = new Map(
    (d.ledger?.vkeys() ?? '')
      .split('\n')
      .filter(Boolean)
      .map((line) => [toHex(parseVkey(line).publicKey), line] as const),
  );
  const logRole = (role: Role): boolean => role.startsWith('log-');
  const cbomKeys = (): CbomKey[] =>
    (Object.keys(ROLES) as Role[])
      .filter((role) => !logRole(role) || (d.ledger && (role !== 'log-ed25519' || d.cfg.logEd25519)))
      .flatMap((role) =>
        d.ring.publicKeys(role).map((publicKey, i) => {
          const vkey = logRole(role) ? vkeyOf.get(toHex(publicKey)) : undefined;
          return {
            role,
            alg: ROLES[role],
            publicKey,
            state: i === 0 && d.ring.has(role) ? 'active' : 'retired',
            ...(vkey ? { vkey } : {}),
          } as CbomKey;
        }),
      );
  const disabled = { enabled: false };
  let openApiText: string | undefined;
  const openApi = (): string => {
    openApiText ??= JSON.stringify(openApiDocument(d.names.service, d.version));
    return openApiText;
  };

  // One handler per operation of the route table; the compiler refuses a missing one.
  const handlers: Record<OperationId | 'getPage', Handler> = {
    verifyBundle: async (req) => settled(await d.executor.run({ op: 'verify', body: await req.body() })),
    createRecord: async (req) => {
      const org = checkOrg(req.query.get('org') ?? undefined);
      const body = await req.body();
      const generated = Math.floor(now() / 1000);
      return settled(await d.executor.run({ op: 'evidence', body, generated, ...(org !== undefined ? { org } : {}) }));
    },
    getAnswerKeys: async () => json(200, pubkeyResponse(d.ring, d.names, d.cfg.slhDiversity)),
    getModelPlaneKeys: async () => json(200, modelPlaneKeys(d.ring, d.names, d.cfg.bridge)),
    getEvidenceSigner: async () => json(200, evidenceSigner(d.ring, d.names)),
    getCbom: async (req) => {
      const format = req.query.get('format');
      if (format !== null && format !== 'cyclonedx') throw new HttpError('invalid_request', 'format takes only the value cyclonedx');
      const accept = String(req.headers.accept ?? '');
      const facts = { keys: cbomKeys(), backends: d.cryptoBackends ?? {} };
      // Vary: one URL, two representations chosen by Accept.
      if (format === 'cyclonedx' || accept.includes(CYCLONEDX_TYPE)) {
        const body = buildCycloneDx(d.cfg, d.version, cbomSerial, cbomTime, facts);
        return { status: 200, body: JSON.stringify(body), headers: { vary: 'accept', 'content-type': `${CYCLONEDX_TYPE}; version=1.6` } };
      }
      return json(200, buildCbom(d.cfg, d.version, cbomSerial, cbomTime, facts), { vary: 'accept' });
    },
    getCouncilHealth: async () => {
      const h = await d.council.health();
      return h ? json(200, h) : json(503, { ok: false }, NO_STORE);
    },
    getSignedTreeHead: async () => json(200, (await ledger()?.head()) ?? disabled),
    proveInclusion: async (req) => {
      const read = await d.executor.run({ op: 'inclusion', body: await req.body() });
      if (!read.ok) return settled(read);
      return json(200, await on().inclusion(JSON.parse(read.json)));
    },
    proveConsistency: async (req) => {
      const l = on();
      const signed = req.query.get('signed');
      if (signed !== null && signed !== '1') throw new HttpError('invalid_request', 'signed takes only the value 1');
      const first = intParam(req.query, 'first', true)!;
      const second = intParam(req.query, 'second', false);
      return json(200, await l.consistency(first, second, signed === '1'));
    },
    getLedgerHistory: async (req) => {
      const v = req.query.get('verifiable');
      if (v !== null && v !== '1') throw new HttpError('invalid_request', 'verifiable takes only the value 1');
      return json(200, (await ledger()?.history(v === '1')) ?? disabled);
    },
    getCheckpoint: async () => ({ status: 200, body: await tlog().checkpoint(), headers: { 'content-type': TEXT_TYPE } }),
    getWitnessing: async () => {
      const status = tlog().witnessing?.();
      return json(200, status ? { enabled: true, ...status } : { enabled: false });
    },
    getLogVkeys: async () => ({ status: 200, body: tlog().vkeys(), headers: { 'content-type': TEXT_TYPE } }),
    getTile: async (req) => {
      const id = parseTilePath(req.path.slice(TLOG_PREFIX.length));
      if (!id) throw new HttpError('not_found', 'not a tile path (tlog-tiles: <L>/<N>[.p/<W>] or entries/<N>[.p/<W>])');
      const body = await tlog().tile(id);
      // A full tile never changes; a partial one is replaced by longer ones as the log grows.
      return {
        status: 200,
        body,
        headers: { 'content-type': 'application/octet-stream', 'cache-control': id.width === 256 ? IMMUTABLE : HOUR_CACHE },
      };
    },
    witnessAddCheckpoint: async (req) => witness().addCheckpoint(await req.body()),
    getWitnessVkeys: async () => ({ status: 200, body: witness().vkeys(), headers: { 'content-type': TEXT_TYPE } }),
    getWitnessedCheckpoint: async (req) => {
      const m = /^\/api\/transparency\/witness\/([0-9a-f]{64})\/checkpoint$/.exec(req.path);
      if (!m) throw new HttpError('not_found', 'an origin hash is 64 lowercase hex characters');
      return witness().checkpoint(m[1]!);
    },
    getHealth: async () => json(200, { ok: true }),
    getReadiness: async () => {
      const checks: Record<string, string> = {};
      const reasons: string[] = [];
      const fail = (name: string, why: string) => {
        checks[name] = why;
        reasons.push(`${name}: ${why}`);
      };
      if (['answer', 'sth'].every((r) => d.ring.has(r as Role))) checks.keys = 'ok';
      else fail('keys', 'the answer or tree-head key is missing');
      const pool = d.poolStats?.();
      if (!pool || pool.workers > 0) checks.workers = pool ? `ok (${pool.workers})` : 'ok (inline)';
      else fail('workers', 'no verification worker is running');
      if (d.ledger) {
        try {
          const h = await d.ledger.head();
          if (h.sth_withheld) fail('ledger', `withheld (${h.sth_withheld})`);
          else checks.ledger = `ok (${h.tree_size} leaves)`;
        } catch (e) {
          fail('ledger', e instanceof Error ? e.message : 'unavailable');
        }
      } else checks.ledger = 'off';
      return json(
        reasons.length === 0 ? 200 : 503,
        reasons.length === 0 ? { ready: true, checks } : { ready: false, checks, reasons },
        NO_STORE,
      );
    },
    getMetrics: async () => {
      if (!d.metrics) throw new HttpError('not_found', 'metrics are off (SVC_METRICS)');
      const m = await d.metrics.text();
      return { status: 200, body: m.body, headers: { 'content-type': m.contentType } };
    },
    getOpenApi: async () => json(200, openApi(), { 'content-type': JSON_TYPE }),
    getPage: async () => {
      const html = d.page?.() ?? null;
      if (!html) throw new HttpError('not_found', 'the verifier page is not built');
      return { status: 200, body: html, headers: { 'content-type': 'text/html; charset=utf-8', ...pageHeaders(html) } };
    },
  };
  const routes: Record<string, Partial<Record<'GET' | 'POST', Route>>> = {};
  // Routes with path parameters, matched by template after the exact paths.
  const templates: [RegExp, string][] = [];
  for (const r of [...ROUTES, ...UNDOCUMENTED] as readonly RouteSpec[]) {
    if (r.path.includes('{') && !templates.some(([, p]) => p === r.path)) templates.push([templateMatcher(r), r.path]);
    routes[r.path] ??= {};
    routes[r.path]![r.method] = { group: r.group, ...(r.cache ? { cache: r.cache } : {}), run: handlers[r.operationId as OperationId] };
  }
  const routeKey = (path: string): string => (routes[path] ? path : (templates.find(([re]) => re.test(path))?.[1] ?? path));

  function limitFor(group: Group): number {
    return group === 'none' ? 0 : (d.cfg.rate[group] ?? 0);
  }

  async function dispatch(req: AppRequest): Promise<AppResponse> {
    const key = routeKey(req.path);
    const entry = routes[key];
    if (!entry) throw new HttpError('not_found', `no such endpoint: ${req.path}`);
    if (req.method === 'OPTIONS' && PREFLIGHT.has(key)) return { status: 204 };
    // RFC 9110 s.9.3.2: HEAD is allowed wherever GET is, and answers GET's headers without a body.
    const allowed = Object.keys(entry).flatMap((m) => (m === 'GET' ? ['GET', 'HEAD'] : [m]));
    const route = entry[(req.method === 'HEAD' ? 'GET' : req.method) as 'GET' | 'POST'];
    if (!route) {
      const e = new HttpError('method_not_allowed', `${req.method} is not allowed on ${req.path}`);
      return {
        status: 405,
        body: e.toJSON(),
        headers: { allow: [...allowed, ...(PREFLIGHT.has(key) ? ['OPTIONS'] : [])].join(', ') },
      };
    }
    // One value per query key: with repeats, which one counts would depend on who reads it.
    const keys = [...req.query.keys()];
    const repeated = keys.find((k, i) => keys.indexOf(k) !== i);
    if (repeated !== undefined) throw new HttpError('invalid_request', `query parameter ${repeated} is given more than once`);
    const perMinute = limitFor(route.group);
    const wait = perMinute > 0 ? await limit(limitKey(req.ip, d.cfg.ipv6Prefix), route.group, perMinute) : 0;
    // A limiter that cannot decide refuses: a limit that fails open under load is no limit.
    if (wait === null) throw new HttpError('unavailable', 'the rate limiter is busy; retry shortly', 1);
    if (wait > 0) {
      const e = new HttpError('rate_limited', 'rate limit exceeded; retry later');
      return { status: 429, body: e.toJSON(), headers: { 'retry-after': String(wait) } };
    }
    const res = await route.run(req);
    // The table's caching applies to the answer it describes, unless the handler chose otherwise.
    if (res.status === 200 && route.cache && !res.headers?.['cache-control'])
      res.headers = { ...res.headers, 'cache-control': route.cache };
    return res;
  }

  async function handle(req: AppRequest): Promise<AppResponse> {
    const started = performance.now();
    const res = await answer(req);
    // Route templates as labels, never raw paths: a scanner must not create a series per URL.
    const key = routeKey(req.path);
    d.metrics?.request(routes[key] ? key : 'unmatched', req.method, res.status, (performance.now() - started) / 1000);
    return res;
  }

  async function answer(req: AppRequest): Promise<AppResponse> {
    let res: AppResponse;
    try {
      res = await dispatch(req);
    } catch (e) {
      const r = refusalOf(e);
      if (r) {
        res = {
          status: r.status,
          body: r.toJSON(),
          headers: {
            ...(r.code === 'unavailable' ? NO_STORE : {}),
            ...(r.retryAfter !== undefined ? { 'retry-after': String(r.retryAfter) } : {}),
          },
        };
      } else {
        d.log('internal_error', { path: req.path, error: e instanceof Error ? e.message : String(e) });
        res = { status: 500, body: { error: 'internal error' } };
      }
    }
    const headers: Record<string, string> = { ...CORS, ...(res.headers ?? {}) };
    if (req.method === 'HEAD' && res.body !== undefined) {
      const bytes =
        res.body instanceof Uint8Array
          ? res.body
          : new TextEncoder().encode(typeof res.body === 'string' ? res.body : JSON.stringify(res.body));
      headers['content-type'] ??= JSON_TYPE;
      headers['content-length'] = String(bytes.length);
      return { status: res.status, headers };
    }
    return { ...res, headers };
  }

  return { handle };
}
