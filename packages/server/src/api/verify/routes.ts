// The routes of verification and records: method, path, rate group, caching, preflight and OpenAPI text.
import { KINDS, MAX_BODY_BYTES } from '@svc/core';
import { MAX_TURNS } from '@svc/core/issue';
import { MAX_ORG_LENGTH } from '@svc/core/record';
import { ref, jsonBody, err, rateLimited, overloaded, type RouteSpec } from '../spec.js';

// Every kind's schema, from the core's one table of kinds.
const anyBundle = { oneOf: KINDS.map((k) => ref(k.schema)) };

export const VERIFY_ROUTES = [
  {
    method: 'POST',
    path: '/api/v1/verify',
    operationId: 'verifyBundle',
    preflight: 'verifyPreflight',
    group: 'verify',
    doc: {
      summary: 'Verify any bundle kind (auto-detected)',
      requestBody: { required: true, content: { 'application/json': { schema: anyBundle } } },
      responses: {
        '200': jsonBody('VerifyResponse', 'The verdict. A bundle that fails verification is a verdict with overallOk:false, not an error.'),
        '400': err('Body is not valid I-JSON (JSON with unique member names).'),
        '413': err(`Payload over ${MAX_BODY_BYTES / 1024 / 1024} MiB (${MAX_BODY_BYTES} bytes).`),
        '422': err(
          `Not a recognised bundle, more than ${MAX_TURNS} turns, a record over-claiming its proof, or a wrapper with a nested signed_tree_head.`,
        ),
        '429': rateLimited,
        '503': overloaded,
      },
    },
  },
  {
    method: 'POST',
    path: '/api/v1/evidence',
    operationId: 'createRecord',
    preflight: 'evidencePreflight',
    group: 'verify',
    doc: {
      summary: 'Turn a proof bundle or run evidence pack into an AI Provenance Record',
      parameters: [{ name: 'org', in: 'query', required: false, schema: { type: 'string', maxLength: 200 } }],
      requestBody: { required: true, content: { 'application/json': { schema: { oneOf: [ref('ProofBundle'), ref('RunProofBundle')] } } } },
      responses: {
        '200': jsonBody('AiProvenanceRecord', 'The record (attested.signed:false when the bundle does not verify).'),
        '400': err('Body is not valid I-JSON (JSON with unique member names).'),
        '413': err(`Payload over ${MAX_BODY_BYTES / 1024 / 1024} MiB (${MAX_BODY_BYTES} bytes).`),
        '422': err(`Not a proof bundle or run evidence pack, or org longer than ${MAX_ORG_LENGTH} characters.`),
        '429': rateLimited,
        '503': overloaded,
      },
    },
  },
] as const satisfies readonly RouteSpec[];
