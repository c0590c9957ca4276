// The one route table of svc serve, joined from the route groups (api/<group>/routes.ts), in the
// order the OpenAPI document lists them. The app mounts each group with its handlers; the OpenAPI
// document (openapi.ts) is built from this table.
import { KEYS_ROUTES } from './api/keys/routes.js';
import { LEDGER_ROUTES } from './api/ledger/routes.js';
import { OPS_ROUTES, PAGE_ROUTES } from './api/ops/routes.js';
import { SCITT_ROUTES } from './api/scitt/routes.js';
import { TLOG_ROUTES } from './api/tlog/routes.js';
import { VERIFY_ROUTES } from './api/verify/routes.js';
import { WITNESS_ROUTES } from './api/witness/routes.js';

export type { Group, RouteSpec } from './api/spec.js';

// WF-ROUTES
export const ROUTES = [
  ...VERIFY_ROUTES,
  ...KEYS_ROUTES,
  ...LEDGER_ROUTES,
  ...TLOG_ROUTES,
  ...SCITT_ROUTES,
  ...WITNESS_ROUTES,
  ...OPS_ROUTES,
] as const;

export type OperationId = (typeof ROUTES)[number]['operationId'];

/** Routes the OpenAPI document leaves out (the HTML page). */
export const UNDOCUMENTED = PAGE_ROUTES;
