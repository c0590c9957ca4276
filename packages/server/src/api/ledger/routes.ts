// The routes of the ledger's JSON API (signed tree heads and proofs): method, path, rate group, caching, preflight and OpenAPI text.
import { MAX_BODY_BYTES } from '@svc/core';
import { ref, jsonBody, err, rateLimited, unavailable, NO_STORE, type RouteSpec } from '../spec.js';

export const LEDGER_ROUTES = [
  {
    method: 'GET',
    path: '/api/transparency/ledger',
    operationId: 'getSignedTreeHead',
    preflight: 'ledgerPreflight',
    group: 'read',
    cache: NO_STORE,
    doc: {
      summary: 'Current signed tree head',
      responses: { '200': jsonBody('LedgerSth', 'The head, or {enabled:false}.'), '429': rateLimited, '503': unavailable },
    },
  },
  {
    method: 'POST',
    path: '/api/transparency/ledger/inclusion',
    operationId: 'proveInclusion',
    preflight: 'inclusionPreflight',
    group: 'read',
    cache: NO_STORE,
    doc: {
      summary: 'RFC 6962 inclusion proof',
      requestBody: { required: true, content: { 'application/json': { schema: ref('InclusionRequest') } } },
      responses: {
        '200': jsonBody('InclusionResponse', 'found:false when absent. Check the path against the signed root, never this response root.'),
        '400': err('Body is not valid I-JSON (JSON with unique member names).'),
        '413': err(`Payload over ${MAX_BODY_BYTES / 1024 / 1024} MiB (${MAX_BODY_BYTES} bytes).`),
        '422': err('No usable answer, answer_sha256 or leaf.'),
        '429': rateLimited,
        '503': unavailable,
      },
    },
  },
  {
    method: 'GET',
    path: '/api/transparency/ledger/consistency',
    operationId: 'proveConsistency',
    preflight: 'consistencyPreflight',
    group: 'read',
    cache: NO_STORE,
    doc: {
      summary: 'RFC 6962 consistency proof (or a ConsistencyBundle with signed=1)',
      parameters: [
        { name: 'first', in: 'query', required: true, schema: { type: 'integer', minimum: 1 } },
        { name: 'second', in: 'query', required: false, schema: { type: 'integer', minimum: 1 } },
        { name: 'signed', in: 'query', required: false, schema: { type: 'string', enum: ['1'] } },
      ],
      responses: {
        '200': {
          description: 'The proof, or the signed bundle.',
          content: { 'application/json': { schema: { oneOf: [ref('ConsistencyResponse'), ref('ConsistencyBundle')] } } },
        },
        '422': err('first or second out of range, or a query parameter given twice.'),
        '429': rateLimited,
        '503': unavailable,
      },
    },
  },
  {
    method: 'GET',
    path: '/api/transparency/ledger/history',
    operationId: 'getLedgerHistory',
    preflight: 'historyPreflight',
    group: 'read',
    cache: NO_STORE,
    doc: {
      summary: 'Recent signed tree heads and the self-audit',
      parameters: [{ name: 'verifiable', in: 'query', required: false, schema: { type: 'string', enum: ['1'] } }],
      responses: { '200': jsonBody('LedgerHistory', 'History.'), '429': rateLimited, '503': unavailable },
    },
  },
] as const satisfies readonly RouteSpec[];
