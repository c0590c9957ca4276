// The OpenAPI 3.1 document of every endpoint, generated from the core's TypeBox schemas so the
// published shapes and the validated shapes cannot drift apart.
import * as schemas from '@svc/core/schemas';

/** TypeBox schemas are JSON Schema; drop `$id` so nested schemas stay plain inline objects. */
function plain(s: unknown): unknown {
  return JSON.parse(JSON.stringify(s), (k, v) => (k === '$id' ? undefined : v));
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const jsonBody = (name: string, description: string) => ({ description, content: { 'application/json': { schema: ref(name) } } });
const err = (description: string) => jsonBody('Error', description);
const rateLimited = {
  description: 'Per-IP rate limit exceeded; honour Retry-After.',
  headers: { 'Retry-After': { schema: { type: 'integer' }, description: 'Seconds until the limit resets.' } },
  content: { 'application/json': { schema: ref('Error') } },
};
const preflight = { summary: 'CORS preflight', responses: { '204': { description: 'No body.' } } };
const unavailable = err('Ledger or history temporarily unavailable.');

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
  return {
    openapi: '3.1.0',
    info: {
      title: `${service}: proof verification, AI Provenance Records and transparency ledger`,
      version: '1.0.0',
      description:
        `Reference server ${version}. A passing verdict attests origin (signerRecognized) and integrity (overallOk) of signed answers, never their accuracy. ` +
        'Algorithm names denote public standards, not FIPS 140 validations. A record is evidence, never a declaration of conformity.',
    },
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
        ReceiptEnvelope: plain(schemas.ReceiptEnvelope),
        ReceiptKey: plain(schemas.ReceiptKey),
        VerifyResponse: plain(schemas.VerifyResponse),
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
}
