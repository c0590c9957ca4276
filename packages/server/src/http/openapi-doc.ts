// What both OpenAPI documents share (the public one, openapi.ts; the issuing listener's,
// issuing/openapi.ts): their shape, a schema reference, a TypeBox schema as plain JSON Schema, and
// the paths built from a RouteSpec table, so a route is documented the one way on either listener.
import type { RouteSpec } from './route-spec.js';

/**
 * One operation of an OpenAPI 3.1 document: a route's `doc` with its id, and what the document adds.
 *
 * @example
 * ```ts
 * const op: OpenApiOperation = openApiDocument('svc', VERSION).paths['/api/v1/verify']!.post!;
 * Object.keys(op.responses); // ['200', '400', '413', ...]
 * ```
 */
export interface OpenApiOperation {
  summary?: string;
  operationId?: string;
  parameters?: unknown[];
  requestBody?: unknown;
  security?: readonly unknown[];
  responses: Record<string, Record<string, unknown>>;
}

/**
 * An OpenAPI 3.1 document as the server serves it at its `openapi.json`.
 *
 * @example
 * ```ts
 * const doc: OpenApiDocument = openApiDocument('svc', VERSION);
 * Object.keys(doc.components.schemas); // ['ProofBundle', 'TranscriptBundle', ...]
 * ```
 */
export interface OpenApiDocument {
  openapi: '3.1.0';
  info: { title: string; version: string; description: string; license?: { name: string; identifier: string } };
  servers: { url: string; description: string }[];
  security: readonly unknown[];
  paths: Record<string, Record<string, OpenApiOperation>>;
  components: { schemas: Record<string, unknown>; securitySchemes?: Record<string, unknown> };
}

export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** TypeBox schemas are JSON Schema; drop `$id` so nested schemas stay plain inline objects. */
export function plain(s: unknown): unknown {
  return JSON.parse(JSON.stringify(s), (k, v) => (k === '$id' ? undefined : v));
}

/** The paths of a route table: each route's operation, and its CORS preflight where it has one. */
export function pathsOf(routes: readonly RouteSpec[]): Record<string, Record<string, OpenApiOperation>> {
  const paths: Record<string, Record<string, OpenApiOperation>> = {};
  for (const r of routes) {
    paths[r.path] ??= {};
    const p = paths[r.path]!;
    p[r.method.toLowerCase()] = { ...structuredClone(r.doc), operationId: r.operationId } as OpenApiOperation;
    // A preflight names the same path parameters as the operation it precedes.
    const inPath = (r.doc.parameters ?? []).filter((x) => (x as { in?: string }).in === 'path');
    if (r.preflight)
      p.options = {
        summary: 'CORS preflight',
        operationId: r.preflight,
        ...(inPath.length ? { parameters: structuredClone(inPath) } : {}),
        responses: { '204': { description: 'No body.' } },
      };
  }
  return paths;
}
