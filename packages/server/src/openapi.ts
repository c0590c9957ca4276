// The OpenAPI 3.1 document of every endpoint, generated from the core's TypeBox schemas so the
// published shapes and the validated shapes cannot drift apart.
import * as schemas from '@svc/core/schemas';
import { ROUTES, type RouteSpec } from './routes.js';
import { pathsOf, plain, ref, type OpenApiDocument, type OpenApiOperation } from './http/openapi-doc.js';

/** VerifyResponse names its verdict by the Verdict component instead of inlining it. */
function withVerdictRef(s: unknown): unknown {
  const o = s as { properties: Record<string, unknown> };
  return { ...o, properties: { ...o.properties, verdict: ref('Verdict') } };
}

// What every response carries (interface.md: every endpoint is CORS-open), and the caching each
// endpoint's 200 declares; documented on the responses so generated clients know them.
const CORS_HEADER = {
  'Access-Control-Allow-Origin': { description: 'Always *: every endpoint is CORS-open.', schema: { type: 'string', const: '*' } },
};
const CACHE: Record<string, string> = Object.fromEntries(
  (ROUTES as readonly RouteSpec[]).filter((r) => r.cache).map((r) => [`${r.method.toLowerCase()} ${r.path}`, r.cache!]),
);

/**
 * Per operation: its id, no authentication, the CORS header on every response, the caching of its
 * 200, and the 400 the HTTP layer gives any request whose target cannot be parsed.
 */
function finish(paths: Record<string, Record<string, OpenApiOperation>>): void {
  for (const [path, ops] of Object.entries(paths)) {
    for (const method of Object.keys(ops)) {
      // Responses are shared between operations in the literal above; each operation gets its own.
      const op = structuredClone(ops[method]!);
      ops[method] = op;
      const key = `${method} ${path}`;
      op.security = [];
      op.responses['400'] ??= {
        description: 'Malformed request target.',
        content: { 'application/json': { schema: ref('Error') } },
      };
      op.responses['500'] ??= {
        description: 'A fault of the server, never of the request: code internal, with the request id the X-Request-Id header carries.',
        content: { 'application/json': { schema: ref('Error') } },
      };
      for (const [status, res] of Object.entries(op.responses)) {
        const headers: Record<string, unknown> = { ...CORS_HEADER, ...((res.headers as object | undefined) ?? {}) };
        if (status === '200' && CACHE[key])
          headers['Cache-Control'] = { description: 'Caching of this answer.', schema: { type: 'string', const: CACHE[key] } };
        if (status === '503' && key !== 'get /api/status/council')
          headers['Retry-After'] ??= { description: 'Seconds to wait, on an overloaded queue.', schema: { type: 'integer' } };
        res.headers = headers;
      }
    }
  }
}

/**
 * The OpenAPI 3.1 document of the server, derived from the route table.
 *
 * @example
 * ```ts
 * const doc = openApiDocument('svc', VERSION);
 * Object.keys(doc.paths); // every documented route
 * ```
 */
export function openApiDocument(service: string, version: string): OpenApiDocument {
  const doc: OpenApiDocument = {
    openapi: '3.1.0',
    info: {
      title: `${service}: proof verification, AI Provenance Records and transparency ledger`,
      version: '1.0.0',
      description:
        `Reference server ${version}. A passing verdict attests origin (signerRecognized) and integrity (overallOk) of signed answers, never their accuracy. ` +
        'Algorithm names denote public standards, not FIPS 140 validations. A record is evidence, never a declaration of conformity.',
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
    },
    // Relative to wherever this document was fetched from: each deployment serves its own.
    servers: [{ url: '/', description: 'The server that serves this document.' }],
    // Every endpoint is public: no authentication anywhere.
    security: [],
    paths: pathsOf(ROUTES as readonly RouteSpec[]),
    components: {
      schemas: {
        ProofBundle: plain(schemas.ProofBundle),
        TranscriptBundle: plain(schemas.TranscriptBundle),
        RunProofBundle: plain(schemas.RunProofBundle),
        ExportArchive: plain(schemas.ExportArchive),
        SthBundle: plain(schemas.SthBundle),
        ConsistencyBundle: plain(schemas.ConsistencyBundle),
        AiProvenanceRecord: plain(schemas.AiProvenanceRecord),
        VerifyResponse: withVerdictRef(plain(schemas.VerifyResponse)),
        Verdict: plain(schemas.Verdict),
        PubkeysResponse: plain(schemas.PubkeysResponse),
        ModelPlaneKeys: plain(schemas.ModelPlaneKeys),
        EvidenceSigner: plain(schemas.EvidenceSigner),
        Cbom: plain(schemas.Cbom),
        LedgerSth: plain(schemas.LedgerSth),
        InclusionRequest: plain(schemas.InclusionRequest),
        InclusionResponse: plain(schemas.InclusionResponse),
        ConsistencyResponse: plain(schemas.ConsistencyResponse),
        LedgerHistory: plain(schemas.LedgerHistory),
        CouncilHealth: plain(schemas.CouncilHealth),
        Error: plain(schemas.ErrorBody),
        Readiness: {
          type: 'object',
          properties: {
            ready: { type: 'boolean' },
            checks: { type: 'object', additionalProperties: { type: 'string' } },
            reasons: { type: 'array', items: { type: 'string' } },
          },
          required: ['ready', 'checks'],
        },
      },
    },
  };
  finish(doc.paths);
  return doc;
}
