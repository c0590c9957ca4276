// The one route table: every endpoint's method, path, rate group, caching, operation id, CORS
// preflight and OpenAPI description. The app (app.ts) takes its routing, limits and cache headers
// from it and must give a handler for every operation id; the OpenAPI document (openapi.ts) is
// built from it. Adding an endpoint is one entry here and one handler there.
import { MAX_BODY_BYTES, MAX_ORG_LENGTH, MAX_TURNS } from '@svc/core';

export type Group = 'verify' | 'read' | 'modelKeys' | 'tiles' | 'metrics' | 'none';

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const jsonBody = (name: string, description: string) => ({ description, content: { 'application/json': { schema: ref(name) } } });
const err = (description: string) => jsonBody('Error', description);
const rateLimited = {
  description: 'Per-IP rate limit exceeded; honour Retry-After.',
  headers: { 'Retry-After': { schema: { type: 'integer' }, description: 'Seconds until the limit resets.' } },
  content: { 'application/json': { schema: ref('Error') } },
};
const unavailable = err('Ledger or history temporarily unavailable.');
const overloaded = err('Too many verifications or request bodies in flight; retry after Retry-After seconds.');
const anyBundle = {
  oneOf: ['ProofBundle', 'TranscriptBundle', 'RunProofBundle', 'ExportArchive', 'SthBundle', 'ConsistencyBundle', 'AiProvenanceRecord'].map(
    ref,
  ),
};

export interface RouteSpec {
  method: 'GET' | 'POST';
  path: string;
  operationId: string;
  group: Group;
  /** The path ends in one `{parameter}` that takes the rest of the path, slashes included. */
  rest?: true;
  /** Cache-Control of the 200 answer (the app sets it unless the handler does). */
  cache?: string;
  /** Operation id of its CORS preflight (OPTIONS): every API route has one, as every answer advertises OPTIONS. */
  preflight?: string;
  /** The OpenAPI operation, less what every operation gets (id, security, CORS header, 400). */
  doc: { summary: string; parameters?: unknown[]; requestBody?: unknown; responses: Record<string, unknown> };
}

const HOUR = 'public, max-age=3600';
/** tlog-tiles: the checkpoint is mutable, so caches keep it a few seconds at most. */
const CHECKPOINT = 'public, max-age=2';
const text = (description: string) => ({ description, content: { 'text/plain': { schema: { type: 'string' } } } });
const NO_STORE = 'no-store';

// WF-ROUTES
export const ROUTES = [
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
  {
    method: 'GET',
    path: '/api/provenance/pubkey',
    operationId: 'getAnswerKeys',
    preflight: 'answerKeysPreflight',
    group: 'read',
    cache: HOUR,
    doc: {
      summary: 'Answer-receipt public keys (current and historic)',
      responses: { '200': jsonBody('PubkeysResponse', 'Cached one hour.'), '429': rateLimited },
    },
  },
  {
    method: 'GET',
    path: '/v1/provenance/pubkeys',
    operationId: 'getModelPlaneKeys',
    preflight: 'modelPlaneKeysPreflight',
    group: 'modelKeys',
    cache: HOUR,
    doc: {
      summary: 'Model-plane public keys',
      responses: { '200': jsonBody('ModelPlaneKeys', 'Empty keys when the bridge is not configured.'), '429': rateLimited },
    },
  },
  {
    method: 'GET',
    path: '/api/v1/evidence-signer',
    operationId: 'getEvidenceSigner',
    preflight: 'evidenceSignerPreflight',
    group: 'read',
    cache: HOUR,
    doc: {
      summary: 'Evidence-pack signer keys (self-attested)',
      responses: { '200': jsonBody('EvidenceSigner', 'Pinned public keys.'), '429': rateLimited },
    },
  },
  {
    method: 'GET',
    path: '/api/cbom',
    operationId: 'getCbom',
    preflight: 'cbomPreflight',
    group: 'read',
    cache: HOUR,
    doc: {
      summary: 'Cryptographic bill of materials (CycloneDX 1.6)',
      parameters: [
        {
          name: 'format',
          in: 'query',
          required: false,
          description: 'cyclonedx: strict CycloneDX 1.6 with the same facts (also chosen by Accept: application/vnd.cyclonedx+json).',
          schema: { type: 'string', enum: ['cyclonedx'] },
        },
      ],
      responses: {
        '200': {
          description: 'Cached one hour; varies by Accept.',
          content: {
            'application/json': { schema: ref('Cbom') },
            'application/vnd.cyclonedx+json': {
              schema: { type: 'object', description: 'CycloneDX 1.6 (https://cyclonedx.org/schema/bom-1.6.schema.json)' },
            },
          },
        },
        '422': err('format has a value other than cyclonedx.'),
        '429': rateLimited,
      },
    },
  },
  {
    method: 'GET',
    path: '/api/status/council',
    operationId: 'getCouncilHealth',
    preflight: 'councilPreflight',
    group: 'read',
    cache: 'public, max-age=60, s-maxage=60',
    doc: {
      summary: 'Cached live probe of the council seats',
      responses: {
        '200': jsonBody('CouncilHealth', 'Cache-Control: public, max-age=60, s-maxage=60.'),
        '429': rateLimited,
        '503': {
          description: 'Model plane could not be probed; not cached.',
          content: { 'application/json': { schema: { type: 'object', properties: { ok: { const: false } }, required: ['ok'] } } },
        },
      },
    },
  },
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
  {
    // Probes: never rate-limited, never cached.
    method: 'GET',
    path: '/healthz',
    operationId: 'getHealth',
    preflight: 'healthPreflight',
    group: 'none',
    cache: NO_STORE,
    doc: {
      summary: 'Liveness: the process answers',
      responses: {
        '200': {
          description: '{ok:true}',
          content: { 'application/json': { schema: { type: 'object', properties: { ok: { const: true } }, required: ['ok'] } } },
        },
      },
    },
  },
  {
    method: 'GET',
    path: '/readyz',
    operationId: 'getReadiness',
    preflight: 'readinessPreflight',
    group: 'none',
    cache: NO_STORE,
    doc: {
      summary: 'Readiness: keys loaded, verification workers up, the ledger readable and not withheld',
      responses: {
        '200': jsonBody('Readiness', 'Ready.'),
        '503': jsonBody('Readiness', 'Not ready: `reasons` says why.'),
      },
    },
  },
  {
    method: 'GET',
    path: '/metrics',
    operationId: 'getMetrics',
    preflight: 'metricsPreflight',
    // Limited per client (SVC_RATE_METRICS) and aggregated at most once a second in a cluster: a
    // scrape flood must not cost the public port.
    group: 'metrics',
    cache: NO_STORE,
    doc: {
      summary: 'Prometheus metrics (text exposition format); 404 with SVC_METRICS=off',
      responses: {
        '200': text('Prometheus text format 0.0.4.'),
        '404': err('Metrics are off.'),
        '429': rateLimited,
        '503': err('The cluster primary could not gather them now; retry after Retry-After seconds.'),
      },
    },
  },
  {
    // Not rate-limited: the document is built once and the same for the process's life.
    method: 'GET',
    path: '/openapi.json',
    operationId: 'getOpenApi',
    preflight: 'openApiPreflight',
    group: 'none',
    cache: HOUR,
    doc: {
      summary: 'This document',
      responses: { '200': { description: 'OpenAPI 3.1', content: { 'application/json': { schema: { type: 'object' } } } } },
    },
  },
] as const satisfies readonly RouteSpec[];

export type OperationId = (typeof ROUTES)[number]['operationId'];

/**
 * Routes the OpenAPI document leaves out: the HTML page is for people, not clients. It counts under
 * the read limit: a person loads it once, and at 449 KB a flood of it costs the port more than any
 * JSON read.
 */
export const UNDOCUMENTED = [{ method: 'GET', path: '/', operationId: 'getPage', group: 'read', cache: 'no-cache' }] as const;
