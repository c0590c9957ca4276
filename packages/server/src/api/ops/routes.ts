// The routes of operations: probes, metrics, the OpenAPI document, the model plane status and the page: method, path, rate group, caching, preflight and OpenAPI text.
import { jsonBody, err, rateLimited, HOUR, text, NO_STORE, type RouteSpec } from '../spec.js';

export const OPS_ROUTES = [
  {
    method: 'GET',
    path: '/api/status/council',
    operationId: 'getCouncilHealth',
    preflight: 'councilPreflight',
    group: 'read',
    cache: 'public, max-age=60, s-maxage=60',
    doc: {
      summary: 'Cached live probe of the council seats',
      responses: {
        '200': jsonBody('CouncilHealth', 'Cache-Control: public, max-age=60, s-maxage=60.'),
        '429': rateLimited,
        '503': {
          description: 'Model plane could not be probed; not cached.',
          content: { 'application/json': { schema: { type: 'object', properties: { ok: { const: false } }, required: ['ok'] } } },
        },
      },
    },
  },
  {
    // Probes: never rate-limited, never cached.
    method: 'GET',
    path: '/healthz',
    operationId: 'getHealth',
    preflight: 'healthPreflight',
    group: 'none',
    cache: NO_STORE,
    doc: {
      summary: 'Liveness: the process answers',
      responses: {
        '200': {
          description: '{ok:true}',
          content: { 'application/json': { schema: { type: 'object', properties: { ok: { const: true } }, required: ['ok'] } } },
        },
      },
    },
  },
  {
    method: 'GET',
    path: '/readyz',
    operationId: 'getReadiness',
    preflight: 'readinessPreflight',
    group: 'none',
    cache: NO_STORE,
    doc: {
      summary:
        'Readiness: keys loaded, verification workers able to start (they start with the first verification), the ledger readable and not withheld',
      responses: {
        '200': jsonBody('Readiness', 'Ready.'),
        '503': jsonBody('Readiness', 'Not ready: `reasons` says why.'),
      },
    },
  },
  {
    method: 'GET',
    path: '/metrics',
    operationId: 'getMetrics',
    preflight: 'metricsPreflight',
    // Limited per client (SVC_RATE_METRICS) and aggregated at most once a second in a cluster: a
    // scrape flood must not cost the public port.
    group: 'metrics',
    cache: NO_STORE,
    doc: {
      summary: 'Prometheus metrics (text exposition format); 404 with SVC_METRICS=off',
      responses: {
        '200': text('Prometheus text format 0.0.4.'),
        '404': err('Metrics are off.'),
        '429': rateLimited,
        '503': err('The cluster primary could not gather them now; retry after Retry-After seconds.'),
      },
    },
  },
  {
    // Not rate-limited: the document is built once and the same for the process's life.
    method: 'GET',
    path: '/openapi.json',
    operationId: 'getOpenApi',
    preflight: 'openApiPreflight',
    group: 'none',
    cache: HOUR,
    doc: {
      summary: 'This document',
      responses: { '200': { description: 'OpenAPI 3.1', content: { 'application/json': { schema: { type: 'object' } } } } },
    },
  },
] as const satisfies readonly RouteSpec[];

/**
 * Routes the OpenAPI document leaves out: the HTML page is for people, not clients. It counts under
 * the read limit: a person loads it once, and at 449 KB a flood of it costs the port more than any
 * JSON read.
 */
export const PAGE_ROUTES = [
  { method: 'GET', path: '/', operationId: 'getPage', group: 'read', cache: 'no-cache' },
] as const satisfies readonly Omit<RouteSpec, 'doc'>[];
