// What the pipeline serves: a route's method, path, rate-limit group, cache and error form, and the
// OpenAPI operation it documents. The route groups (api/<group>/routes.ts) fill it in.

export type Group = 'verify' | 'read' | 'modelKeys' | 'tiles' | 'metrics' | 'none';

export interface RouteSpec {
  method: 'GET' | 'POST';
  path: string;
  operationId: string;
  group: Group;
  /** The path ends in one `{parameter}` that takes the rest of the path, slashes included. */
  rest?: true;
  /** Cache-Control of the 200 answer (the app sets it unless the handler does). */
  cache?: string;
  /** Errors as RFC 9290 Concise Problem Details in CBOR (SCRAPI) instead of `{error, code}`. */
  problem?: 'cbor';
  /** Errors in OpenAI's shape, `{error: {message, type, code, param}}` (the issuing front's routes). */
  errors?: 'openai';
  /** Operation id of its CORS preflight (OPTIONS): every API route has one, as every answer advertises OPTIONS. */
  preflight?: string;
  /** The OpenAPI operation, less what every operation gets (id, security, CORS header, 400). */
  doc: {
    summary: string;
    parameters?: unknown[];
    requestBody?: unknown;
    security?: readonly unknown[];
    responses: Record<string, unknown>;
  };
}
