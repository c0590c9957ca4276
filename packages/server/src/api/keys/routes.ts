// The routes of the service's keys and its cryptographic inventory: method, path, rate group, caching, preflight and OpenAPI text.
import { ref, jsonBody, err, rateLimited, HOUR, type RouteSpec } from '../spec.js';

const kindParameter = {
  name: 'kind',
  in: 'query',
  required: false,
  description: "Only this receipt kind's ML-DSA-87 keys (and the Ed25519 envelope keys).",
  schema: { type: 'string', enum: ['answer', 'run', 'export', 'tree-head'] },
};

export const KEYS_ROUTES = [
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
    path: '/api/provenance/jwks.json',
    operationId: 'getEnvelopeJwks',
    preflight: 'envelopeJwksPreflight',
    group: 'read',
    cache: HOUR,
    doc: {
      summary: "The receipt envelopes' keys as a JWK Set (RFC 9964 AKP ML-DSA-87, OKP Ed25519; current and historic)",
      parameters: [kindParameter],
      responses: {
        '200': {
          description: 'A JWK Set: `{keys: [...]}`, each key with its RFC 7638 thumbprint as kid. Cached one hour.',
          content: {
            'application/jwk-set+json': {
              schema: { type: 'object', properties: { keys: { type: 'array', items: { type: 'object' } } }, required: ['keys'] },
            },
          },
        },
        '422': err('kind is not one of answer, run, export, tree-head.'),
        '429': rateLimited,
      },
    },
  },
  {
    method: 'GET',
    path: '/api/provenance/cose-keys',
    operationId: 'getEnvelopeCoseKeys',
    preflight: 'envelopeCoseKeysPreflight',
    group: 'read',
    cache: HOUR,
    doc: {
      summary: "The receipt envelopes' keys as a COSE_KeySet (RFC 9052 s.7; AKP kty 7 alg -50, OKP Ed25519)",
      parameters: [kindParameter],
      responses: {
        '200': {
          description: 'CBOR: an array of COSE_Key maps, each with its RFC 9679 thumbprint as kid. Cached one hour.',
          content: { 'application/cose-key-set': { schema: { type: 'string', format: 'binary' } } },
        },
        '422': err('kind is not one of answer, run, export, tree-head.'),
        '429': rateLimited,
      },
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
] as const satisfies readonly RouteSpec[];
