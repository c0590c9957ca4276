// The SCITT Reference API (draft-ietf-scitt-scrapi): registration, receipts by entry id, the log's
// receipt keys, and the transparency configuration. Errors are Concise Problem Details in CBOR.
import { HOUR, NO_STORE, type RouteSpec } from '../spec.js';

const cbor = (description: string, type = 'application/cbor') => ({
  description,
  content: { [type]: { schema: { type: 'string', format: 'binary' } } },
});
const problem = (description: string) =>
  cbor(`${description} RFC 9290 Concise Problem Details: {-1: title, -2: detail}.`, 'application/concise-problem-details+cbor');
const limited = problem('Rate limited (Retry-After).');
const off = problem('The ledger is off on this server (404), or unavailable (503).');

export const SCITT_ROUTES = [
  {
    method: 'GET',
    path: '/.well-known/transparency-configuration',
    operationId: 'getTransparencyConfiguration',
    preflight: 'transparencyConfigurationPreflight',
    group: 'read',
    cache: HOUR,
    problem: 'cbor',
    doc: {
      summary: 'SCITT transparency configuration (CBOR map: issuer, scitt_keys_uri, registration_uri, vds, receipt_algorithms)',
      responses: {
        '200': cbor('Fields not understood are ignored (SCRAPI). URIs are relative to this server.'),
        '404': off,
        '429': limited,
      },
    },
  },
  {
    method: 'GET',
    path: '/.well-known/scitt-keys',
    operationId: 'getScittKeys',
    preflight: 'scittKeysPreflight',
    group: 'read',
    cache: HOUR,
    problem: 'cbor',
    doc: {
      summary: "The log's receipt keys as a COSE_KeySet (ML-DSA-44 and Ed25519; current and retired; kid = RFC 9679 thumbprint)",
      responses: { '200': cbor('COSE_KeySet.'), '404': off, '429': limited },
    },
  },
  {
    method: 'GET',
    path: '/.well-known/scitt-keys/{kid}',
    operationId: 'getScittKey',
    preflight: 'scittKeyPreflight',
    group: 'read',
    cache: HOUR,
    problem: 'cbor',
    doc: {
      summary: 'One receipt key by its kid (base64url, no padding)',
      parameters: [{ name: 'kid', in: 'path', required: true, schema: { type: 'string' } }],
      responses: { '200': cbor('COSE_Key.'), '404': problem('No such key.'), '429': limited },
    },
  },
  {
    method: 'POST',
    path: '/entries',
    operationId: 'registerSignedStatement',
    preflight: 'registerPreflight',
    group: 'verify',
    problem: 'cbor',
    doc: {
      summary: 'Register a Signed Statement (COSE_Sign1) under the registration policy',
      requestBody: { required: true, content: { 'application/cose': { schema: { type: 'string', format: 'binary' } } } },
      responses: {
        '201': cbor('The ML-DSA-44 receipt; Location: /entries/{id}.', 'application/cose'),
        '303': { description: 'Registered; no published checkpoint covers it yet. Location: /entries/{id}, Retry-After.' },
        '400': problem('Malformed, or refused by the registration policy (Rejected, Bad Signature Algorithm, Payload Missing).'),
        '404': off,
        '413': problem('Over 64 KiB.'),
        '429': limited,
        '503': off,
      },
    },
  },
  {
    method: 'GET',
    path: '/entries/{id}',
    operationId: 'resolveReceipt',
    preflight: 'resolveReceiptPreflight',
    group: 'read',
    cache: NO_STORE,
    problem: 'cbor',
    doc: {
      summary: 'The receipt of an entry at the published checkpoint (?alg=EdDSA for the Ed25519 one)',
      parameters: [
        { name: 'id', in: 'path', required: true, schema: { type: 'string', pattern: '^[0-9a-f]{64}$' } },
        { name: 'alg', in: 'query', required: false, schema: { type: 'string', enum: ['ML-DSA-44', 'EdDSA'] } },
      ],
      responses: {
        '200': cbor('An RFC 9942 receipt (vds 1).', 'application/cose'),
        '302': { description: 'Registered; no published checkpoint covers it yet (Retry-After).' },
        '400': problem('Invalid locator, or an alg this log does not sign with.'),
        '404': problem('No entry with this id.'),
        '429': limited,
        '503': off,
      },
    },
  },
] as const satisfies readonly RouteSpec[];
