// The private issuing listener's own OpenAPI document, apart from the public one: its routes, the
// bearer scheme every issuing route needs, and the answer object's schema (the same TypeBox schema
// the routes check against, so the two cannot drift).
import { MAX_BODY_BYTES } from '@svc/core';
import * as schemas from '@svc/core/schemas';
import { IssueBatchRequest, IssueRequest, MAX_BATCH } from './input.js';
import { IssueExportRequest, IssueRunRequest, IssueTranscriptRequest } from './kind-input.js';

const plain = (s: unknown): unknown => JSON.parse(JSON.stringify(s), (k, v) => (k === '$id' ? undefined : v));
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const jsonOf = (schema: unknown, description: string) => ({ description, content: { 'application/json': { schema } } });
const err = (description: string) => jsonOf(ref('Error'), description);

/** What every issuing route may answer besides its 200. */
const REFUSALS = {
  '400': err('Malformed JSON or request target (invalid_json, invalid_request).'),
  '401': {
    ...err('No valid bearer token: none, malformed, unknown, revoked, or one sent in the URL (unauthorized).'),
    headers: { 'WWW-Authenticate': { schema: { type: 'string', const: 'Bearer realm="svc-issue"' } } },
  },
  '413': err(`Body over ${MAX_BODY_BYTES / (1024 * 1024)} MiB (too_large).`),
  '422': err('The answer object breaks a rule (invalid_request), named in the message.'),
  '429': {
    ...err("The token's requests per minute are spent (rate_limited)."),
    headers: { 'Retry-After': { schema: { type: 'integer' } } },
  },
  '503': {
    ...err('The ledger withholds its head or cannot be reached: nothing was signed (unavailable).'),
    headers: { 'Retry-After': { schema: { type: 'integer' } } },
  },
};

/** What a front route answers: the upstream's answer with the proof, whole or streamed, or why not. */
const frontAnswers = (proof: string, description: string) => ({
  '200': {
    description,
    content: {
      'application/json': { schema: { type: 'object', properties: { [proof]: ref('ProofBundle') } } },
      'text/event-stream': { schema: { type: 'string' } },
    },
  },
  ...REFUSALS,
  '502': err('The upstream failed, answered what is not an answer, or more than its cap: nothing was signed (bad_gateway).'),
  '504': err('The upstream did not answer within SVC_UPSTREAM_SECONDS: nothing was signed (gateway_timeout).'),
});

/**
 * The OpenAPI 3.1 document of the private issuing listener (served there at /api/v1/issue/openapi.json).
 *
 * @example
 * ```ts
 * const doc = issueOpenApiDocument('svc');
 * Object.keys(doc.paths); // ['/api/v1/issue', '/api/v1/issue/batch', '/v1/chat/completions', ...]
 * ```
 */
export function issueOpenApiDocument(service: string) {
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
    paths: {
      '/api/v1/issue': {
        post: {
          operationId: 'issue',
          summary: 'Sign one answer and log it; the ProofBundle once its leaf is under a signed head.',
          requestBody: { required: true, ...jsonOf(ref('IssueRequest'), 'The answer object.') },
          responses: { '200': jsonOf(ref('ProofBundle'), 'The signed, logged answer.'), ...REFUSALS },
        },
      },
      '/api/v1/issue/batch': {
        post: {
          operationId: 'issueBatch',
          summary: `Sign 1 to ${MAX_BATCH} answers as one append under one signed head; all or none.`,
          requestBody: { required: true, ...jsonOf(ref('IssueBatchRequest'), 'The answer objects.') },
          responses: {
            '200': jsonOf(
              { type: 'object', properties: { bundles: { type: 'array', items: ref('ProofBundle') } }, required: ['bundles'] },
              'The bundles, in order.',
            ),
            ...REFUSALS,
          },
        },
      },
      '/api/v1/issue/transcript': {
        post: {
          operationId: 'issueTranscript',
          summary: 'Sign the turns as answers issued together (one append) and return them as a TranscriptBundle.',
          requestBody: { required: true, ...jsonOf(ref('IssueTranscriptRequest'), 'The turns, answer objects, and a title.') },
          responses: { '200': jsonOf({ type: 'object' }, 'The TranscriptBundle; every turn verifies as a ProofBundle.'), ...REFUSALS },
        },
      },
      '/api/v1/issue/run': {
        post: {
          operationId: 'issueRun',
          summary:
            "Sign an autopilot run's evidence pack under the autopilot context and log its run hash; refused (422) when it would not verify (V3: budget, steps).",
          requestBody: {
            required: true,
            ...jsonOf(ref('IssueRunRequest'), 'The run: goal, steps with output hashes and verification method, budget.'),
          },
          responses: { '200': jsonOf({ type: 'object' }, 'The RunProofBundle.'), ...REFUSALS },
        },
      },
      '/api/v1/issue/export': {
        post: {
          operationId: 'issueExport',
          summary:
            'Sign a conversation export under the export context (its manifest commits to the payload and counts) and log the manifest hash.',
          requestBody: { required: true, ...jsonOf(ref('IssueExportRequest'), 'The conversations, each with its messages.') },
          responses: { '200': jsonOf({ type: 'object' }, 'The ExportArchive.'), ...REFUSALS },
        },
      },
      '/v1/chat/completions': {
        post: {
          operationId: 'chatCompletions',
          summary:
            'OpenAI-compatible: forwarded to the council seat named by model; the answer comes back unchanged with the proof bundle added ' +
            `(member ${proof}; streamed, one more event before [DONE]). council_grounded is false: one model answered.`,
          requestBody: {
            required: true,
            ...jsonOf({ type: 'object', required: ['model', 'messages'] }, 'A chat completion request; n, if given, is 1.'),
          },
          responses: {
            ...frontAnswers(
              proof,
              `The upstream's completion with ${proof}, or (stream: true) its events, then one with ${proof}, then [DONE].`,
            ),
          },
        },
      },
      '/v1/responses': {
        post: {
          operationId: 'responses',
          summary:
            'OpenAI Responses API, stateless: forwarded to the seat named by model at <endpoint>/responses; the response comes back with ' +
            `${proof} (streamed, on the response of its response.completed or response.incomplete event). previous_response_id, ` +
            'conversation, background, a stored prompt, item_reference and store: true are refused. council_grounded is false.',
          requestBody: { required: true, ...jsonOf({ type: 'object', required: ['model', 'input'] }, 'A response request.') },
          responses: {
            ...frontAnswers(
              proof,
              `The response with ${proof}, or (stream: true) its typed events, the last carrying ${proof} on its response.`,
            ),
          },
        },
      },
      '/api/v1/issue/openapi.json': {
        get: {
          operationId: 'issueOpenApi',
          summary: 'This document.',
          security: [],
          responses: { '200': jsonOf({ type: 'object' }, 'OpenAPI 3.1.') },
        },
      },
    },
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
