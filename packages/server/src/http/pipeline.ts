// The one HTTP pipeline every listener runs (the public server, the standalone witness, the
// metrics listener): routing by template, 405 with Allow, HEAD and CORS preflights, one value per
// query key, rate limits, the route's caching, CORS headers, metrics, and one error boundary
// (errorResponse). Listeners differ only in the routes they mount and the options they pass.
import type { Logger } from '../log.js';
import type { Group, RouteSpec } from './route-spec.js';
import { errorResponse, HttpError } from './errors.js';
import type { AppRequest, AppResponse, Handler } from './types.js';

/** A route as a listener serves it: where, what it costs, how it caches, and its handler. */
export interface Mounted {
  method: 'GET' | 'POST';
  /** A template: `{name}` is one segment, or the rest of the path for a `rest` route's last parameter. */
  path: string;
  rest?: true;
  group: Group;
  cache?: string;
  /** The route answers a CORS preflight (OPTIONS). */
  preflight?: boolean;
  /** Its errors are Concise Problem Details (CBOR), as SCRAPI asks. */
  problem?: 'cbor';
  /** Its errors are in OpenAI's shape, `{error: {message, type, code, param}}` (the front's routes). */
  errors?: 'openai';
  run: Handler;
}

/**
 * The routes of a table with their handlers, optionally moved from one prefix to another (the
 * witness's routes sit under /api/transparency/witness/ in svc serve and at / on their own).
 */
export function mount<S extends Omit<RouteSpec, 'doc'>>(
  specs: readonly S[],
  handlers: Record<S['operationId'], Handler>,
  move?: { from: string; to: string },
): Mounted[] {
  return specs.map((r) => ({
    method: r.method,
    path: move && r.path.startsWith(move.from) ? move.to + r.path.slice(move.from.length) : r.path,
    group: r.group,
    ...(r.rest ? { rest: true as const } : {}),
    ...(r.cache ? { cache: r.cache } : {}),
    ...(r.preflight ? { preflight: true } : {}),
    ...(r.problem ? { problem: r.problem } : {}),
    ...(r.errors ? { errors: r.errors } : {}),
    run: handlers[r.operationId as S['operationId']],
  }));
}

export interface PipelineOptions {
  routes: readonly Mounted[];
  log: Logger;
  /** The public API's CORS headers on every answer (off for the witness and metrics listeners). */
  cors?: boolean;
  /**
   * Seconds the client must wait before this request (0: go on), or null when the limiter cannot
   * decide: the request is then refused with 503, never let through (a limit that fails open under
   * load is no limit). Absent: nothing is limited.
   */
  limit?: (req: AppRequest, group: Group) => number | null | Promise<number | null>;
  /** Each answer, labelled by route template (never the raw path: a scanner must not make series). */
  observe?: (route: string, method: string, status: number, seconds: number) => void;
}

const CORS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET, POST, OPTIONS',
  'access-control-allow-headers': 'content-type',
  'access-control-max-age': '86400',
};
const JSON_TYPE = 'application/json; charset=utf-8';

interface Entry {
  template: string;
  params: string[];
  methods: Partial<Record<'GET' | 'POST', Mounted>>;
  preflight: boolean;
}

function matcher(r: Mounted): { re: RegExp; params: string[] } {
  const parts = r.path.split(/(\{[a-z_]+\})/);
  const last = parts.length - 2;
  const params: string[] = [];
  const source = parts
    .map((p, i) => {
      if (!p.startsWith('{')) return p.replace(/[.*+?^$()|[\]\\]/g, '\\$&');
      params.push(p.slice(1, -1));
      return r.rest && i === last ? '(.+)' : '([^/]+)';
    })
    .join('');
  return { re: new RegExp(`^${source}$`), params };
}

/**
 * A listener's request handler, independent of node:http.
 *
 * @example
 * ```ts
 * const { handle } = createPipeline({ routes: mount(OPS_ROUTES, opsHandlers(deps, openApiText)), log });
 * ```
 */
export function createPipeline(o: PipelineOptions) {
  const exact = new Map<string, Entry>();
  const templated: [RegExp, Entry][] = [];
  for (const r of o.routes) {
    let e = exact.get(r.path) ?? templated.find(([, t]) => t.template === r.path)?.[1];
    if (!e) {
      const m = matcher(r);
      e = { template: r.path, params: m.params, methods: {}, preflight: false };
      if (m.params.length === 0) exact.set(r.path, e);
      else templated.push([m.re, e]);
    }
    e.methods[r.method] = r;
    // A preflight is CORS's: a listener without CORS headers has nothing to answer it with.
    e.preflight ||= o.cors === true && r.preflight === true;
  }
  const find = (path: string): { entry: Entry; params: Record<string, string> } | null => {
    const e = exact.get(path);
    if (e) return { entry: e, params: {} };
    for (const [re, entry] of templated) {
      const m = re.exec(path);
      if (m) return { entry, params: Object.fromEntries(entry.params.map((n, i) => [n, m[i + 1]!])) };
    }
    return null;
  };

  async function dispatch(req: AppRequest, found: ReturnType<typeof find>): Promise<AppResponse> {
    if (!found) throw new HttpError('not_found', `no such endpoint: ${req.path}`);
    const { entry, params } = found;
    if (req.method === 'OPTIONS' && entry.preflight) return { status: 204 };
    // RFC 9110 s.9.3.2: HEAD is allowed wherever GET is, and answers GET's headers without a body.
    const route = entry.methods[(req.method === 'HEAD' ? 'GET' : req.method) as 'GET' | 'POST'];
    if (!route) {
      const allow = Object.keys(entry.methods).flatMap((m) => (m === 'GET' ? ['GET', 'HEAD'] : [m]));
      if (entry.preflight) allow.push('OPTIONS');
      throw new HttpError('method_not_allowed', `${req.method} is not allowed on ${req.path}`, { headers: { allow: allow.join(', ') } });
    }
    // One value per query key: with repeats, which one counts would depend on who reads it.
    const keys = [...req.query.keys()];
    const repeated = keys.find((k, i) => keys.indexOf(k) !== i);
    if (repeated !== undefined) throw new HttpError('invalid_request', `query parameter ${repeated} is given more than once`);
    const wait = o.limit ? await o.limit(req, route.group) : 0;
    if (wait === null) throw new HttpError('unavailable', 'the rate limiter is busy; retry shortly', { retryAfter: 1 });
    if (wait > 0) throw new HttpError('rate_limited', 'rate limit exceeded; retry later', { retryAfter: wait });
    const res = await route.run(req, params);
    // The table's caching applies to the answer it describes, unless the handler chose otherwise.
    if (res.status === 200 && route.cache && !res.headers?.['cache-control'])
      res.headers = { ...res.headers, 'cache-control': route.cache };
    return res;
  }

  async function handle(req: AppRequest): Promise<AppResponse> {
    const started = performance.now();
    const found = find(req.path);
    let res: AppResponse;
    try {
      res = await dispatch(req, found);
    } catch (e) {
      const methods = found ? Object.values(found.entry.methods) : [];
      const form = methods.some((m) => m.problem === 'cbor')
        ? 'problem+cbor'
        : methods.some((m) => m.errors === 'openai')
          ? 'openai'
          : 'json';
      res = errorResponse(e, o.log, req.path, form);
    }
    o.observe?.(found ? found.entry.template : 'unmatched', req.method, res.status, (performance.now() - started) / 1000);
    const headers: Record<string, string> = { ...(o.cors ? CORS : {}), ...(res.headers ?? {}) };
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
