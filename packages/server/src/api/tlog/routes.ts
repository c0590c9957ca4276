// The routes of the tiled log (c2sp.org/tlog-tiles and its checkpoint): method, path, rate group, caching, preflight and OpenAPI text.
import { err, rateLimited, unavailable, HOUR, CHECKPOINT, text, NO_STORE, type RouteSpec } from '../spec.js';

export const TLOG_ROUTES = [
  {
    method: 'GET',
    path: '/api/transparency/tlog/checkpoint',
    operationId: 'getCheckpoint',
    preflight: 'checkpointPreflight',
    group: 'tiles',
    cache: CHECKPOINT,
    doc: {
      summary: 'The latest signed tree head as a C2SP checkpoint (c2sp.org/tlog-checkpoint)',
      responses: {
        '200': text('A signed note: origin, tree size, base64 root; ML-DSA-44 subtree/v1, ML-DSA-87 and (by default) Ed25519 lines.'),
        '404': err('The ledger is off.'),
        '429': rateLimited,
        '503': err('No checkpoint is signed while the ledger is withheld (same reason as sth_withheld), or the ledger is unavailable.'),
      },
    },
  },
  {
    method: 'GET',
    path: '/api/transparency/tlog/vkeys',
    operationId: 'getLogVkeys',
    preflight: 'vkeysPreflight',
    group: 'tiles',
    cache: HOUR,
    doc: {
      summary: "The log's verifier keys (c2sp.org/signed-note vkeys), one per line, current first",
      responses: { '200': text('One vkey per line.'), '404': err('The ledger is off.'), '429': rateLimited },
    },
  },
  {
    method: 'GET',
    path: '/api/transparency/tlog/witnessing',
    operationId: 'getWitnessing',
    preflight: 'witnessingPreflight',
    group: 'tiles',
    cache: NO_STORE,
    doc: {
      summary: 'Where witnessing stands: the latest checkpoint, the last one published with a quorum, and the lag',
      responses: {
        '200': {
          description: '{enabled:false} without SVC_WITNESS_POLICY.',
          content: {
            'application/json': {
              schema: {
                type: 'object',
                properties: {
                  enabled: { type: 'boolean' },
                  latestSize: { type: ['integer', 'null'] },
                  publishedSize: { type: ['integer', 'null'] },
                  lagMs: { type: 'integer', description: 'Milliseconds the latest checkpoint has waited for a quorum (0: published).' },
                  cosigned: { type: 'integer' },
                  witnesses: { type: 'integer' },
                },
                required: ['enabled'],
              },
            },
          },
        },
        '404': err('The ledger is off.'),
        '429': rateLimited,
      },
    },
  },
  {
    method: 'GET',
    path: '/api/transparency/tlog/tile/{tile}',
    rest: true,
    operationId: 'getTile',
    preflight: 'tilePreflight',
    group: 'tiles',
    doc: {
      summary: 'A Merkle tree tile or entry bundle (c2sp.org/tlog-tiles)',
      parameters: [
        {
          name: 'tile',
          in: 'path',
          required: true,
          description: '<L>/<N>[.p/<W>] or entries/<N>[.p/<W>], N in x-prefixed 3-digit groups (e.g. 0/x001/234.p/7).',
          schema: { type: 'string' },
        },
      ],
      responses: {
        '200': {
          description: 'Full tiles are 8,192 bytes and immutable; entry bundles hold uint16-length-prefixed 32-byte leaves.',
          content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } },
        },
        '404': err('Not a tile path, a tile beyond the tree, or the ledger is off.'),
        '429': rateLimited,
        '503': unavailable,
      },
    },
  },
] as const satisfies readonly RouteSpec[];
