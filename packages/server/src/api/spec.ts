// What a route is, and the OpenAPI fragments the route groups share. Each group (api/<group>/)
// keeps its routes beside its handlers; routes.ts joins the tables into the one the OpenAPI
// document is built from. Adding an endpoint is one entry in its group's routes and one handler.

import { ref } from '../http/openapi-doc.js';

export type { Group, RouteSpec } from '../http/route-spec.js';
export { ref };
export const jsonBody = (name: string, description: string) => ({ description, content: { 'application/json': { schema: ref(name) } } });
export const err = (description: string) => jsonBody('Error', description);
export const rateLimited = {
  description: 'Per-IP rate limit exceeded; honour Retry-After.',
  headers: { 'Retry-After': { schema: { type: 'integer' }, description: 'Seconds until the limit resets.' } },
  content: { 'application/json': { schema: ref('Error') } },
};
export const unavailable = err('Ledger or history temporarily unavailable.');
export const overloaded = err('Too many verifications or request bodies in flight; retry after Retry-After seconds.');

export const HOUR = 'public, max-age=3600';
/** tlog-tiles: the checkpoint is mutable, so caches keep it a few seconds at most. */
export const CHECKPOINT = 'public, max-age=2';
export const text = (description: string) => ({ description, content: { 'text/plain': { schema: { type: 'string' } } } });
export const NO_STORE = 'no-store';
