// The routes of the tlog-mirror (c2sp.org/tlog-mirror), served by `svc mirror serve` at /: the
// submission calls and, under <origin hash>/, the mirrored log as tlog-tiles with the mirror's
// checkpoint. Method, path, rate group, caching and what each answer means.
import { MAX_BODY_BYTES } from '@svc/core';
import { err, HOUR, CHECKPOINT, text, NO_STORE, type RouteSpec } from '../spec.js';

const ORIGIN_HASH = { name: 'origin_hash', in: 'path', required: true, schema: { type: 'string', pattern: '^[0-9a-f]{64}$' } };
const INFO = { description: '', content: { 'text/x.tlog.mirror-info': { schema: { type: 'string' } } } };

export const MIRROR_ROUTES = [
  {
    method: 'POST',
    path: '/add-checkpoint',
    operationId: 'mirrorAddCheckpoint',
    group: 'read',
    cache: NO_STORE,
    doc: {
      summary: "tlog-witness add-checkpoint, moving this mirror's pending checkpoint of a log (nothing is signed)",
      requestBody: { required: true, content: { 'text/plain': { schema: { type: 'string' } } } },
      responses: {
        '200': text('An empty body: the checkpoint is now pending.'),
        '400': text('Malformed request, or an old size above the checkpoint size.'),
        '403': text('No valid signature by a key trusted for the origin.'),
        '404': text('A log this mirror does not mirror.'),
        '409': {
          description: 'The old size is not the pending size, which the body gives.',
          content: { 'text/x.tlog.size': { schema: { type: 'string' } } },
        },
        '413': err(`Payload over ${MAX_BODY_BYTES} bytes.`),
        '422': text('Not consistent with the pending checkpoint.'),
      },
    },
  },
  {
    method: 'POST',
    path: '/add-entries',
    operationId: 'mirrorAddEntries',
    group: 'none',
    cache: NO_STORE,
    doc: {
      summary: 'tlog-mirror add-entries: entries in 256-aligned packages, each proved into a pending checkpoint (gzip accepted)',
      requestBody: { required: true, content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } } },
      responses: {
        '200': text(
          "Cosignature lines: this mirror's ML-DSA-44 subtree/v1 and Ed25519 cosignature/v1 on the checkpoint of size upload_end.",
        ),
        '202': { ...INFO, description: 'A prefix was kept: the size, the next entry and a ticket (empty), one a line.' },
        '400': text('The header or the first package did not arrive whole, or is malformed.'),
        '404': text('A log this mirror does not mirror.'),
        '409': { ...INFO, description: 'upload_end or upload_start does not fit the mirror state, which the body gives.' },
        '415': text('A body that is not application/octet-stream, or a content coding other than gzip.'),
        '422': text('No pending checkpoint yet, or a package that is not in the checkpoint of size upload_end.'),
        '503': err('Too many uploads at once, or the store is unavailable; retry after Retry-After.'),
      },
    },
  },
  {
    method: 'GET',
    path: '/vkeys',
    operationId: 'getMirrorVkeys',
    group: 'read',
    cache: HOUR,
    doc: { summary: "This mirror's verifier keys, one per line", responses: { '200': text('One vkey per line.') } },
  },
  {
    method: 'GET',
    path: '/{origin_hash}/checkpoint',
    operationId: 'getMirrorCheckpoint',
    group: 'tiles',
    cache: CHECKPOINT,
    doc: {
      summary: "The mirror checkpoint of a log: the log's lines, then this mirror's cosignature",
      parameters: [ORIGIN_HASH],
      responses: { '200': text('A signed note.'), '404': err('Not a log this mirror mirrors, or nothing mirrored yet.') },
    },
  },
  {
    method: 'GET',
    path: '/{origin_hash}/tile/{tile}',
    rest: true,
    operationId: 'getMirrorTile',
    group: 'tiles',
    doc: {
      summary: 'A tile or entry bundle of the mirrored log at the mirror checkpoint (c2sp.org/tlog-tiles)',
      parameters: [ORIGIN_HASH, { name: 'tile', in: 'path', required: true, schema: { type: 'string' } }],
      responses: {
        '200': { description: 'The tile.', content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } } },
        '404': err('Not a tile path, beyond the mirror checkpoint, or not a log this mirror mirrors.'),
      },
    },
  },
] as const satisfies readonly RouteSpec[];
