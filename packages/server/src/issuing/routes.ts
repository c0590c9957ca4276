// The private issuing listener's route table: each route's method, path, operation id, caching,
// error form and OpenAPI operation, in the same RouteSpec the public routes use. The listener
// mounts it with its handlers (app.ts); its own OpenAPI document is built from it (openapi.ts), so
// a route cannot be served undocumented or documented unserved. `<proof>` in a text stands for the
// service's proof member (`svc_proof`), filled in per service.
import { MAX_BODY_BYTES } from '@svc/core';
import type { RouteSpec } from '../http/route-spec.js';
import { ref } from '../http/openapi-doc.js';
import { MAX_BATCH } from './input.js';

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
const frontAnswers = (description: string) => ({
  '200': {
    description,
    content: {
      'application/json': { schema: { type: 'object', properties: { '<proof>': ref('ProofBundle') } } },
      'text/event-stream': { schema: { type: 'string' } },
    },
  },
  ...REFUSALS,
  '502': err('The upstream failed, answered what is not an answer, or more than its cap: nothing was signed (bad_gateway).'),
  '504': err('The upstream did not answer within SVC_UPSTREAM_SECONDS: nothing was signed (gateway_timeout).'),
});

const post = (
  path: string,
  operationId: string,
  summary: string,
  requestBody: unknown,
  responses: Record<string, unknown>,
  errors?: 'openai',
) =>
  ({
    method: 'POST',
    path,
    operationId,
    group: 'none',
    cache: 'no-store',
    ...(errors ? { errors } : {}),
    doc: { summary, requestBody, responses },
  }) as const;

export const ISSUE_ROUTES = [
  post(
    '/api/v1/issue',
    'issue',
    'Sign one answer and log it; the ProofBundle once its leaf is under a signed head.',
    { required: true, ...jsonOf(ref('IssueRequest'), 'The answer object.') },
    { '200': jsonOf(ref('ProofBundle'), 'The signed, logged answer.'), ...REFUSALS },
  ),
  post(
    '/api/v1/issue/batch',
    'issueBatch',
    `Sign 1 to ${MAX_BATCH} answers as one append under one signed head; all or none.`,
    { required: true, ...jsonOf(ref('IssueBatchRequest'), 'The answer objects.') },
    {
      '200': jsonOf(
        { type: 'object', properties: { bundles: { type: 'array', items: ref('ProofBundle') } }, required: ['bundles'] },
        'The bundles, in order.',
      ),
      ...REFUSALS,
    },
  ),
  post(
    '/api/v1/issue/transcript',
    'issueTranscript',
    'Sign the turns as answers issued together (one append) and return them as a TranscriptBundle.',
    { required: true, ...jsonOf(ref('IssueTranscriptRequest'), 'The turns, answer objects, and a title.') },
    { '200': jsonOf({ type: 'object' }, 'The TranscriptBundle; every turn verifies as a ProofBundle.'), ...REFUSALS },
  ),
  post(
    '/api/v1/issue/run',
    'issueRun',
    "Sign an autopilot run's evidence pack under the autopilot context and log its run hash; refused (422) when it would not verify (V3: budget, steps).",
    { required: true, ...jsonOf(ref('IssueRunRequest'), 'The run: goal, steps with output hashes and verification method, budget.') },
    { '200': jsonOf({ type: 'object' }, 'The RunProofBundle.'), ...REFUSALS },
  ),
  post(
    '/api/v1/issue/export',
    'issueExport',
    'Sign a conversation export under the export context (its manifest commits to the payload and counts) and log the manifest hash.',
    { required: true, ...jsonOf(ref('IssueExportRequest'), 'The conversations, each with its messages.') },
    { '200': jsonOf({ type: 'object' }, 'The ExportArchive.'), ...REFUSALS },
  ),
  post(
    '/v1/chat/completions',
    'chatCompletions',
    'OpenAI-compatible: forwarded to the council seat named by model; the answer comes back unchanged with the proof bundle added ' +
      '(member <proof>; streamed, one more event before [DONE]). council_grounded is false: one model answered.',
    { required: true, ...jsonOf({ type: 'object', required: ['model', 'messages'] }, 'A chat completion request; n, if given, is 1.') },
    frontAnswers("The upstream's completion with <proof>, or (stream: true) its events, then one with <proof>, then [DONE]."),
    'openai',
  ),
  post(
    '/v1/responses',
    'responses',
    'OpenAI Responses API, stateless: forwarded to the seat named by model at <endpoint>/responses; the response comes back with ' +
      '<proof> (streamed, on the response of its response.completed or response.incomplete event). previous_response_id, ' +
      'conversation, background, a stored prompt, item_reference and store: true are refused. council_grounded is false.',
    { required: true, ...jsonOf({ type: 'object', required: ['model', 'input'] }, 'A response request.') },
    frontAnswers('The response with <proof>, or (stream: true) its typed events, the last carrying <proof> on its response.'),
    'openai',
  ),
  {
    method: 'GET',
    path: '/api/v1/issue/openapi.json',
    operationId: 'issueOpenApi',
    group: 'none',
    cache: 'no-store',
    // The document needs no token: it says how to get one.
    doc: { summary: 'This document.', security: [], responses: { '200': jsonOf({ type: 'object' }, 'OpenAPI 3.1.') } },
  },
] as const satisfies readonly RouteSpec[];

export type IssueOperationId = (typeof ISSUE_ROUTES)[number]['operationId'];
