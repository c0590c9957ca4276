// Our envelopes read by code we did not write (#33). On every Node: panva's `jose` verifies the
// JWS's Ed25519 signature with the server's published JWK Set, and `cbor2` plus OpenSSL
// (node:crypto) verify the Ed25519 COSE_Sign1. The ML-DSA-87 halves are checked under Node 24 by
// test/native/envelopes-openssl.test.ts (WebCrypto and OpenSSL have ML-DSA there).
import { createPublicKey, verify } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decode as cborDecode, encode as cborEncode, Tag } from 'cbor2';
import { createLocalJWKSet, generalVerify, type GeneralJWS } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { namesFor, verifyBundle } from '@svc/core';
import { fromBase64Url } from '@svc/core/primitives';
import { receiptMessage } from '@svc/core/issue';
import { envelopeChecker, envelopeTypes } from '@svc/core/envelope';
import {
  CouncilProbe,
  Issuer,
  createApp,
  ensureKeys,
  inlineExecutor,
  loadConfig,
  pinnedKeys,
  type AppRequest,
} from '../../src/internal.js';
import { seedKeys } from '../support/keys.js';

const names = namesFor('svc');
const ED25519_SPKI = Buffer.from('302a300506032b6570032100', 'hex');
let dir: string;
let app: ReturnType<typeof createApp>;
let issuer: Issuer;

const get = (path: string): AppRequest => {
  const url = new URL(path, 'http://x');
  return { method: 'GET', path: url.pathname, query: url.searchParams, headers: {}, ip: '192.0.2.1', body: async () => new Uint8Array() };
};

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-envelopes-'));
  const cfg = loadConfig({ SVC_DATA_DIR: dir, SVC_LOG: '0', SVC_LEDGER: 'off' });
  seedKeys(dir);
  const ring = ensureKeys(cfg, () => {});
  const council = new CouncilProbe(
    () => null,
    {},
    () => {},
  );
  app = createApp({
    cfg,
    names,
    ring,
    executor: inlineExecutor({ service: 'svc', trustedKeys: pinnedKeys(ring, names, false) }),
    council,
    ledger: null,
    log: () => {},
    version: '0.0.0-test',
  });
  issuer = new Issuer(ring, names, null, { envelopes: ['jws', 'cose'] });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function jwks(kind = 'answer') {
  const r = await app.handle(get(`/api/provenance/jwks.json?kind=${kind}`));
  expect(r.status).toBe(200);
  expect(r.headers?.['content-type']).toBe('application/jwk-set+json');
  return JSON.parse(r.body as string);
}

describe('jose (panva) reads our JWS envelopes', () => {
  it("verifies the Ed25519 signature with the server's JWK Set, and the payload is the receipt core", async () => {
    const b = await issuer.issue({ answer: 'The answer, enveloped.' });
    expect((await verifyBundle(b, { envelopes: envelopeChecker })).verdict.overallOk).toBe(true);
    const jws = (b.receipt as unknown as { envelopes: { jws: GeneralJWS } }).envelopes.jws;
    const r = await generalVerify(jws, createLocalJWKSet(await jwks()), { algorithms: ['Ed25519'] });
    expect(r.protectedHeader).toMatchObject({ alg: 'Ed25519', typ: envelopeTypes(names, 'answer').jose });
    expect(r.payload).toEqual(receiptMessage(b.receipt));
  });

  it('rejects a flipped payload byte, and a key set of another kind', async () => {
    const b = await issuer.issue({ answer: 'Another answer.' });
    const jws = structuredClone((b.receipt as unknown as { envelopes: { jws: GeneralJWS } }).envelopes.jws);
    const set = createLocalJWKSet(await jwks());
    const bytes = fromBase64Url(jws.payload)!;
    bytes[5]! ^= 1;
    const flipped = { ...jws, payload: Buffer.from(bytes).toString('base64url') };
    await expect(generalVerify(flipped, set, { algorithms: ['Ed25519'] })).rejects.toThrow();
    // The run kind's set lists the run key and the Ed25519 key: the ML-DSA-87 signature finds no key.
    const runSet = createLocalJWKSet(await jwks('run'));
    const mlOnly = { ...jws, signatures: [jws.signatures[0]!] };
    await expect(generalVerify(mlOnly, runSet, { algorithms: ['ML-DSA-87'] })).rejects.toThrow();
  });

  it('an unknown kind is refused (422), not answered with every key', async () => {
    const r = await app.handle(get('/api/provenance/jwks.json?kind=everything'));
    expect(r.status).toBe(422);
  });
});

describe('a CBOR library we did not write (cbor2) and OpenSSL read our COSE envelopes', () => {
  it('the Ed25519 COSE_Sign1 decodes as tag 18 and its Sig_structure verifies with node:crypto', async () => {
    const b = await issuer.issue({ answer: 'COSE, read by others.' });
    const cose = (b.receipt as unknown as { envelopes: { cose: string[] } }).envelopes.cose;
    expect(cose).toHaveLength(2);
    const tagged = cborDecode(fromBase64Url(cose[1])!) as Tag;
    expect(tagged).toBeInstanceOf(Tag);
    expect(tagged.tag).toBe(18);
    const [prot, unprot, payload, sig] = tagged.contents as [Uint8Array, Map<number, unknown> | object, Uint8Array, Uint8Array];
    const header = cborDecode(prot) as Map<number, unknown>;
    expect(header.get(1)).toBe(-19);
    expect(header.get(16)).toBe(envelopeTypes(names, 'answer').cose);
    expect((header.get(15) as Map<number, unknown>).get(1)).toBe('svc');
    expect((header.get(15) as Map<number, unknown>).get(6)).toBe(b.receipt.ts);
    // cbor2 gives an empty map as a plain object.
    expect(unprot instanceof Map ? unprot.size : Object.keys(unprot).length).toBe(0);
    expect(payload).toEqual(receiptMessage(b.receipt));
    // The COSE key set, read by cbor2: the Ed25519 key whose kid the header names.
    const set = await app.handle(get('/api/provenance/cose-keys?kind=answer'));
    expect(set.headers?.['content-type']).toBe('application/cose-key-set');
    const keys = cborDecode(set.body as Uint8Array) as Map<number, unknown>[];
    const ed = keys.find((k) => k.get(1) === 1)!;
    expect(Buffer.from(ed.get(2) as Uint8Array)).toEqual(Buffer.from(header.get(4) as Uint8Array));
    const key = createPublicKey({ key: Buffer.concat([ED25519_SPKI, ed.get(-2) as Uint8Array]), format: 'der', type: 'spki' });
    const toBeSigned = cborEncode(['Signature1', prot, new Uint8Array(0), payload]);
    expect(verify(null, toBeSigned, key, sig)).toBe(true);
    const other = cborEncode(['Signature1', prot, new Uint8Array(0), new Uint8Array([...payload, 0x20])]);
    expect(verify(null, other, key, sig)).toBe(false);
  });
});
