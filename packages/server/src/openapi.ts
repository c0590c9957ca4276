// The OpenAPI 3.1 document of every endpoint, generated from the core's TypeBox schemas so the
// published shapes and the validated shapes cannot drift apart.
import * as schemas from '@svc/core/schemas';

/** TypeBox schemas are JSON Schema; drop `$id` so nested schemas stay plain inline objects. */
function plain(s: unknown): unknown {
  return JSON.parse(JSON.stringify(s), (k, v) => (k === '$id' ? undefined : v));
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** VerifyResponse names its verdict by the ProofVerdict component instead of inlining it. */
function withVerdictRef(s: unknown): unknown {
  const o = s as { properties: Record<string, unknown> };
  return { ...o, properties: { ...o.properties, verdict: ref('ProofVerdict') } };
}
const jsonBody = (name: string, description: string) => ({ description, content: { 'application/json': { schema: ref(name) } } });
const err = (description: string) => jsonBody('Error', description);
const rateLimited = {
  description: 'Per-IP rate limit exceeded; honour Retry-After.',
  headers: { 'Retry-After': { schema: { type: 'integer' }, description: 'Seconds until the limit resets.' } },
  content: { 'application/json': { schema: ref('Error') } },
};
const preflight = { summary: 'CORS preflight', responses: { '204': { description: 'No body.' } } };
const unavailable = err('Ledger or history temporarily unavailable.');

// What every response carries (interface.md: every endpoint is CORS-open), and the caching each
// endpoint's 200 declares; documented on the responses so generated clients know them.
const CORS_HEADER = {
  'Access-Control-Allow-Origin': { description: 'Always *: every endpoint is CORS-open.', schema: { type: 'string', const: '*' } },
};
const CACHE: Record<string, string> = {
  'get /api/provenance/pubkey': 'public, max-age=3600',
  'get /v1/provenance/pubkeys': 'public, max-age=3600',
  'get /api/v1/evidence-signer': 'public, max-age=3600',
  'get /api/cbom': 'public, max-age=3600',
  'get /openapi.json': 'public, max-age=3600',
  'get /api/status/council': 'public, max-age=60, s-maxage=60',
  'get /api/transparency/ledger': 'no-store',
  'post /api/transparency/ledger/inclusion': 'no-store',
  'get /api/transparency/ledger/consistency': 'no-store',
  'get /api/transparency/ledger/history': 'no-store',
};
const OPERATION_IDS: Record<string, string> = {
  'post /api/v1/verify': 'verifyBundle',
  'options /api/v1/verify': 'verifyPreflight',
  'post /api/v1/evidence': 'createRecord',
  'options /api/v1/evidence': 'evidencePreflight',
  'get /api/provenance/pubkey': 'getAnswerKeys',
  'get /v1/provenance/pubkeys': 'getModelPlaneKeys',
  'get /api/v1/evidence-signer': 'getEvidenceSigner',
  'get /api/cbom': 'getCbom',
  'get /api/status/council': 'getCouncilHealth',
  'get /api/transparency/ledger': 'getSignedTreeHead',
  'options /api/transparency/ledger': 'ledgerPreflight',
  'post /api/transparency/ledger/inclusion': 'proveInclusion',
  'options /api/transparency/ledger/inclusion': 'inclusionPreflight',
  'get /api/transparency/ledger/consistency': 'proveConsistency',
  'options /api/transparency/ledger/consistency': 'consistencyPreflight',
  'get /api/transparency/ledger/history': 'getLedgerHistory',
  'options /api/transparency/ledger/history': 'historyPreflight',
  'get /openapi.json': 'getOpenApi',
};

type Operation = { operationId?: string; security?: unknown[]; responses: Record<string, Record<string, unknown>> };

/**
 * Per operation: its id, no authentication, the CORS header on every response, the caching of its
 * 200, and the 400 the HTTP layer gives any request whose target cannot be parsed.
 */
function finish(paths: Record<string, Record<string, Operation>>): void {
  for (const [path, ops] of Object.entries(paths)) {
    for (const method of Object.keys(ops)) {
      // Responses are shared between operations in the literal above; each operation gets its own.
      const op = structuredClone(ops[method]!);
      ops[method] = op;
      const key = `${method} ${path}`;
      op.operationId = OPERATION_IDS[key];
      op.security = [];
      op.responses['400'] ??= {
        description: 'Malformed request target.',
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

export function openApiDocument(service: string, version: string) {
  const anyBundle = {
    oneOf: [
      'ProofBundle',
      'TranscriptBundle',
      'RunProofBundle',
      'ExportArchive',
      'SthBundle',
      'ConsistencyBundle',
      'AiProvenanceRecord',
    ].map(ref),
  };
  const doc = {
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
    paths: {
      '/api/v1/verify': {
        post: {
          summary: 'Verify any bundle kind (auto-detected)',
          requestBody: { required: true, content: { 'application/json': { schema: anyBundle } } },
          responses: {
            '200': jsonBody(
              'VerifyResponse',
              'The verdict. A bundle that fails verification is a verdict with overallOk:false, not an error.',
            ),
            '400': err('Body is not valid JSON.'),
            '413': err('Payload over 2 MB.'),
            '422': err(
              'Not a recognised bundle, more than 200 turns, a record over-claiming its proof, or a wrapper with a nested signed_tree_head.',
            ),
            '429': rateLimited,
          },
        },
        options: preflight,
      },
      '/api/v1/evidence': {
        post: {
          summary: 'Turn a proof bundle or run evidence pack into an AI Provenance Record',
          parameters: [{ name: 'org', in: 'query', required: false, schema: { type: 'string', maxLength: 200 } }],
          requestBody: {
            required: true,
            content: { 'application/json': { schema: { oneOf: [ref('ProofBundle'), ref('RunProofBundle')] } } },
          },
          responses: {
            '200': jsonBody('AiProvenanceRecord', 'The record (attested.signed:false when the bundle does not verify).'),
            '400': err('Body is not valid JSON.'),
            '413': err('Payload over 2 MB.'),
            '422': err('Not a proof bundle or run evidence pack, or org longer than 200 characters.'),
            '429': rateLimited,
          },
        },
        options: preflight,
      },
      '/api/provenance/pubkey': {
        get: {
          summary: 'Answer-receipt public keys (current and historic)',
          responses: { '200': jsonBody('PubkeysResponse', 'Cached one hour.'), '429': rateLimited },
        },
      },
      '/v1/provenance/pubkeys': {
        get: {
          summary: 'Model-plane public keys',
          responses: { '200': jsonBody('ModelPlaneKeys', 'Empty keys when the bridge is not configured.'), '429': rateLimited },
        },
      },
      '/api/v1/evidence-signer': {
        get: {
          summary: 'Evidence-pack signer keys (self-attested)',
          responses: { '200': jsonBody('EvidenceSigner', 'Pinned public keys.'), '429': rateLimited },
        },
      },
      '/api/cbom': {
        get: {
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
      '/api/status/council': {
        get: {
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
      '/api/transparency/ledger': {
        get: {
          summary: 'Current signed tree head',
          responses: { '200': jsonBody('LedgerSth', 'The head, or {enabled:false}.'), '429': rateLimited, '503': unavailable },
        },
        options: preflight,
      },
      '/api/transparency/ledger/inclusion': {
        post: {
          summary: 'RFC 6962 inclusion proof',
          requestBody: { required: true, content: { 'application/json': { schema: ref('InclusionRequest') } } },
          responses: {
            '200': jsonBody(
              'InclusionResponse',
              'found:false when absent. Check the path against the signed root, never this response root.',
            ),
            '400': err('Body is not valid JSON.'),
            '413': err('Payload over 2 MB.'),
            '422': err('No usable answer, answer_sha256 or leaf.'),
            '429': rateLimited,
            '503': unavailable,
          },
        },
        options: preflight,
      },
      '/api/transparency/ledger/consistency': {
        get: {
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
            '422': err('first or second out of range.'),
            '429': rateLimited,
            '503': unavailable,
          },
        },
        options: preflight,
      },
      '/api/transparency/ledger/history': {
        get: {
          summary: 'Recent signed tree heads and the self-audit',
          parameters: [{ name: 'verifiable', in: 'query', required: false, schema: { type: 'string', enum: ['1'] } }],
          responses: { '200': jsonBody('LedgerHistory', 'History.'), '429': rateLimited, '503': unavailable },
        },
        options: preflight,
      },
      '/openapi.json': {
        get: {
          summary: 'This document',
          responses: { '200': { description: 'OpenAPI 3.1', content: { 'application/json': { schema: { type: 'object' } } } } },
        },
      },
    },
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
        ProofVerdict: plain(schemas.ProofVerdict),
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
      },
    },
  };
  finish(doc.paths as unknown as Record<string, Record<string, Operation>>);
  return doc;
}
