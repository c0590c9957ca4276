// The routes of the tlog-witness (c2sp.org/tlog-witness), in svc serve or on its own: method, path, rate group, caching, preflight and OpenAPI text.
import { MAX_BODY_BYTES } from '@svc/core';
import { ref, err, rateLimited, HOUR, CHECKPOINT, text, NO_STORE, type RouteSpec } from '../spec.js';

export const WITNESS_ROUTES = [
  {
    method: 'POST',
    path: '/api/transparency/witness/add-checkpoint',
    operationId: 'witnessAddCheckpoint',
    preflight: 'witnessAddCheckpointPreflight',
    group: 'read',
    cache: NO_STORE,
    doc: {
      summary: 'c2sp.org/tlog-witness add-checkpoint (when this server witnesses logs: SVC_WITNESS_SERVE_POLICY)',
      requestBody: {
        required: true,
        content: { 'text/plain': { schema: { type: 'string', description: 'old <size>, proof lines, an empty line, the checkpoint.' } } },
      },
      responses: {
        '200': text('Cosignature lines: ML-DSA-44 subtree/v1 and Ed25519 cosignature/v1 of this witness.'),
        '400': text('Malformed request, or an old size above the checkpoint size.'),
        '403': text('No valid signature by a key trusted for the origin.'),
        '404': {
          description: 'A log this witness does not witness (text), or this server is not a witness (JSON error).',
          content: { 'text/plain': { schema: { type: 'string' } }, 'application/json': { schema: ref('Error') } },
        },
        '409': {
          description: 'The old size is not the last cosigned size, which the body gives.',
          content: { 'text/x.tlog.size': { schema: { type: 'string' } } },
        },
        '413': err(`Payload over ${MAX_BODY_BYTES / 1024 / 1024} MiB (${MAX_BODY_BYTES} bytes).`),
        '422': text('Not consistent with the checkpoint last cosigned for this log.'),
        '429': rateLimited,
      },
    },
  },
  {
    method: 'POST',
    path: '/api/transparency/witness/sign-subtree',
    operationId: 'witnessSignSubtree',
    preflight: 'witnessSignSubtreePreflight',
    group: 'read',
    cache: NO_STORE,
    doc: {
      summary:
        'c2sp.org/tlog-witness sign-subtree: a subtree/v1 cosignature (timestamp 0) of a subtree of a checkpoint this witness cosigned',
      requestBody: {
        required: true,
        content: {
          'text/plain': {
            schema: {
              type: 'string',
              description: 'subtree <start> <end>, the subtree hash, up to 63 proof lines, an empty line, the checkpoint.',
            },
          },
        },
      },
      responses: {
        '200': text("Subtree cosignature lines: this witness's ML-DSA-44 subtree/v1 key, timestamp 0."),
        '400': text('Malformed request, or a range that is not a subtree ending within the checkpoint.'),
        '403': text("The checkpoint carries no valid cosignature of this witness's."),
        '404': {
          description: 'A log this witness does not witness (text), or this server is not a witness (JSON error).',
          content: { 'text/plain': { schema: { type: 'string' } }, 'application/json': { schema: ref('Error') } },
        },
        '413': err(`Payload over ${MAX_BODY_BYTES / 1024 / 1024} MiB (${MAX_BODY_BYTES} bytes).`),
        '422': text("The subtree consistency proof does not lead to the checkpoint's root."),
        '429': rateLimited,
      },
    },
  },
  {
    method: 'GET',
    path: '/api/transparency/witness/vkeys',
    operationId: 'getWitnessVkeys',
    preflight: 'witnessVkeysPreflight',
    group: 'read',
    cache: HOUR,
    doc: {
      summary: "This witness's verifier keys, one per line",
      responses: { '200': text('One vkey per line.'), '404': err('This server is not a witness.'), '429': rateLimited },
    },
  },
  {
    method: 'GET',
    path: '/api/transparency/witness/{origin_hash}/checkpoint',
    operationId: 'getWitnessedCheckpoint',
    preflight: 'witnessedCheckpointPreflight',
    group: 'read',
    cache: CHECKPOINT,
    doc: {
      summary: 'The latest checkpoint this witness cosigned for a log, by the SHA-256 of its origin (lowercase hex)',
      parameters: [{ name: 'origin_hash', in: 'path', required: true, schema: { type: 'string', pattern: '^[0-9a-f]{64}$' } }],
      responses: {
        '200': text("The checkpoint with the log lines and this witness's cosignatures."),
        '404': err('Nothing cosigned for that log, or not a witness.'),
        '429': rateLimited,
      },
    },
  },
] as const satisfies readonly RouteSpec[];
