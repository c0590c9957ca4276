// Operations: liveness and readiness probes, metrics, the OpenAPI document, the model plane's
// status and the verifier page.
import { HttpError } from '../../http/errors.js';
import { pageHeaders } from '../../http/page-headers.js';
import { json, type Handler } from '../../http/types.js';
import type { Role } from '../../keys/keyring.js';
import { JSON_TYPE } from '../answers.js';
import type { AppDeps } from '../deps.js';
import type { OPS_ROUTES, PAGE_ROUTES } from './routes.js';

const NO_STORE = { 'cache-control': 'no-store' };

type OpsId = (typeof OPS_ROUTES)[number]['operationId'] | (typeof PAGE_ROUTES)[number]['operationId'];

/** `openApi`: the document of every route, which the app (above the route table) builds. */
export function opsHandlers(d: AppDeps, openApi: () => string): Record<OpsId, Handler> {
  return {
    getCouncilHealth: async () => {
      const h = await d.council.health();
      return h ? json(200, h) : json(503, { ok: false }, NO_STORE);
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
      if (!pool) checks.workers = 'ok (inline)';
      else if (!pool.started) checks.workers = `ok (${pool.size}, started by the first verification)`;
      else if (pool.workers > 0) checks.workers = `ok (${pool.workers})`;
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
}
