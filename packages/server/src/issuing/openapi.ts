// The private issuing listener's own OpenAPI document, apart from the public one: its routes (the
// table in routes.ts, which the listener mounts), the bearer scheme every issuing route needs, and
// the answer object's schema (the same TypeBox schema the routes check against, so the two cannot drift).
import * as schemas from '@svc/core/schemas';
import { IssueBatchRequest, IssueRequest } from './input.js';
import { IssueExportRequest, IssueRunRequest, IssueTranscriptRequest } from './kind-input.js';
import { ISSUE_ROUTES } from './routes.js';
import { pathsOf, plain, type OpenApiDocument } from '../http/openapi-doc.js';

/** The paths of the table, with this service's proof member named where a text says `<proof>`. */
function pathsFor(proof: string): OpenApiDocument['paths'] {
  return JSON.parse(JSON.stringify(pathsOf(ISSUE_ROUTES)).replaceAll('<proof>', JSON.stringify(proof).slice(1, -1)));
}

/**
 * The OpenAPI 3.1 document of the private issuing listener (served there at /api/v1/issue/openapi.json).
 *
 * @example
 * ```ts
 * const doc = issueOpenApiDocument('svc');
 * Object.keys(doc.paths); // ['/api/v1/issue', '/api/v1/issue/batch', '/v1/chat/completions', ...]
 * ```
 */
export function issueOpenApiDocument(service: string): OpenApiDocument {
  const proof = `${service}_proof`;
  return {
    openapi: '3.1.0',
    info: {
      title: `${service}: private issuing API`,
      version: '1.0.0',
      description:
        'Signs answers with the service keys and logs them in its transparency ledger. Served on its own listener (SVC_ISSUE_LISTEN), never the public port; ' +
        'every issuing route needs a bearer token. A signature attests who issued an answer and that it is unaltered, never that it is accurate.',
    },
    servers: [{ url: '/', description: 'The private listener that serves this document.' }],
    security: [{ bearer: [] }],
    paths: pathsFor(proof),
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'A token from `svc token add NAME`; its SHA-256 is in SVC_ISSUE_TOKENS.' },
      },
      schemas: {
        IssueRequest: plain(IssueRequest),
        IssueBatchRequest: plain(IssueBatchRequest),
        IssueTranscriptRequest: plain(IssueTranscriptRequest),
        IssueRunRequest: plain(IssueRunRequest),
        IssueExportRequest: plain(IssueExportRequest),
        ProofBundle: plain(schemas.ProofBundle),
        Error: plain(schemas.ErrorBody),
      },
    },
  };
}
