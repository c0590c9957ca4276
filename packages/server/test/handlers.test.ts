// Handlers in-process: the app's handle() with an inline executor, an in-memory ledger and an
// injected clock, no socket and no worker thread. Every endpoint, its status, headers and body
// schema, in milliseconds; the real-socket path is covered by endpoints.test.ts and the fuzzers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { namesFor, SvcError } from '@svc/core';
import * as schemas from '@svc/core/schemas';
import {
  CouncilProbe,
  Issuer,
  Keyring,
  Ledger,
  MemoryHighWater,
  SqliteStore,
  createApp,
  ensureKeys,
  inlineExecutor,
  loadConfig,
  pinnedKeys,
  type AppRequest,
  type AppResponse,
} from '../src/internal.js';
import { expectSchema } from './support/harness.js';
import { seedKeys } from './support/keys.js';

const names = namesFor('svc');
let dir: string;
let now = 1_800_000_000_000;
let app: ReturnType<typeof createApp>;
let issuer: Issuer;
let store: SqliteStore;

function req(method: string, target: string, body?: unknown, ip = '192.0.2.1'): AppRequest {
  const url = new URL(target, 'http://x');
  const bytes = body === undefined ? new Uint8Array(0) : new TextEncoder().encode(typeof body === 'string' ? body : JSON.stringify(body));
  return { method, path: url.pathname, query: url.searchParams, headers: {}, ip, body: async () => bytes };
}
/** The body as a client would read it: JSON text parsed (handlers may answer with text). */
const json = (r: AppResponse): any => (typeof r.body === 'string' ? JSON.parse(r.body) : r.body);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-handlers-'));
  seedKeys(dir);
  const cfg = loadConfig({ SVC_DATA_DIR: dir, SVC_LOG: '0' }, { rate: { verify: 3, read: 1000, modelKeys: 2, tiles: 0 } });
  const ring = ensureKeys(cfg, () => {});
  store = new SqliteStore(':memory:');
  const ledger = new Ledger({
    store,
    names,
    log: 'svc-ledger',
    sthKey: ring.get('sth'),
    isPublished: () => true,
    highWater: new MemoryHighWater(),
    now: () => now,
  });
  await ledger.init();
  await ledger.audit.fullCheck();
  issuer = new Issuer(Keyring.load(join(dir, 'keys')).ring, names, ledger, { bridge: false, now: () => now });
  const executor = inlineExecutor({ service: 'svc', trustedKeys: pinnedKeys(ring, names, false) });
  const council = new CouncilProbe(
    () => null,
    {},
    () => {},
    () => now,
  );
  app = createApp({ cfg, names, ring, executor, council, ledger, log: () => {}, version: '0.0.0-test', now: () => now });
});
afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('every endpoint through handle()', () => {
  it('POST /api/v1/verify: an issued bundle verifies and is recognised', async () => {
    const bundle = await issuer.issue({ answer: 'in-process answer' });
    const r = await app.handle(req('POST', '/api/v1/verify', bundle));
    expect(r.status).toBe(200);
    expectSchema(schemas.VerifyResponse, json(r));
    expect(json(r)).toMatchObject({ verdict: { overallOk: true }, signerRecognized: true });
    expect(r.headers?.['access-control-allow-origin']).toBe('*');
  });

  it('POST /api/v1/evidence?org=: a record dated by the injected clock', async () => {
    const r = await app.handle(req('POST', '/api/v1/evidence?org=Example', await issuer.issue({ answer: 'evidence' })));
    expect(r.status).toBe(200);
    expectSchema(schemas.AiProvenanceRecord, json(r));
    expect(json(r).generated).toBe(Math.floor(now / 1000));
    expect(json(r).subject).toEqual({ organisation: 'Example' });
  });

  it.each([
    ['/api/provenance/pubkey', 'PubkeysResponse', 'public, max-age=3600'],
    ['/v1/provenance/pubkeys', 'ModelPlaneKeys', 'public, max-age=3600'],
    ['/api/v1/evidence-signer', 'EvidenceSigner', 'public, max-age=3600'],
    ['/api/cbom', 'Cbom', 'public, max-age=3600'],
    ['/api/transparency/ledger', 'LedgerSth', 'no-store'],
    ['/api/transparency/ledger/history?verifiable=1', 'LedgerHistory', 'no-store'],
  ] as const)('GET %s answers 200 with its schema and Cache-Control %s', async (path, schema, cache) => {
    const r = await app.handle(req('GET', path));
    expect(r.status).toBe(200);
    expectSchema((schemas as Record<string, unknown>)[schema], json(r));
    expect(r.headers?.['cache-control']).toBe(cache);
  });

  it('GET /api/status/council: 503 {ok:false}, not cached, when no model plane is configured', async () => {
    const r = await app.handle(req('GET', '/api/status/council'));
    expect(r.status).toBe(503);
    expect(json(r)).toEqual({ ok: false });
    expect(r.headers?.['cache-control']).toBe('no-store');
  });

  it('inclusion and consistency proofs for what was issued', async () => {
    await issuer.issue({ answer: 'proved' });
    const head = json(await app.handle(req('GET', '/api/transparency/ledger')));
    const inc = await app.handle(req('POST', '/api/transparency/ledger/inclusion', { answer: 'proved' }));
    expect(inc.status).toBe(200);
    expectSchema(schemas.InclusionResponse, json(inc));
    expect(json(inc)).toMatchObject({ found: true, tree_size: head.tree_size });
    const con = await app.handle(req('GET', `/api/transparency/ledger/consistency?first=1&second=${head.tree_size}&signed=1`));
    expect(con.status).toBe(200);
    expect(json(con).kind).toBe('svc-consistency');
    expect((await app.handle(req('GET', '/api/transparency/ledger/consistency?first=0'))).status).toBe(422);
  });

  it('GET /openapi.json and GET /', async () => {
    const o = await app.handle(req('GET', '/openapi.json'));
    expect(o.status).toBe(200);
    expect(json(o).openapi).toBe('3.1.0');
    // No page was handed to this app: a 404 with the error body, not a crash.
    expect((await app.handle(req('GET', '/'))).status).toBe(404);
  });

  it('HEAD answers GET headers with no body; OPTIONS 204; 405 with Allow; 404', async () => {
    const h = await app.handle(req('HEAD', '/api/cbom'));
    expect(h.status).toBe(200);
    expect(h.body).toBeUndefined();
    expect(Number(h.headers?.['content-length'])).toBeGreaterThan(100);
    expect((await app.handle(req('OPTIONS', '/api/v1/verify'))).status).toBe(204);
    const m = await app.handle(req('DELETE', '/api/cbom'));
    expect(m.status).toBe(405);
    expect(m.headers?.allow).toBe('GET, HEAD, OPTIONS');
    expect((await app.handle(req('GET', '/nope'))).status).toBe(404);
  });

  it('refusals keep their documented status: 400 invalid JSON, 422 unknown kind, 413 from the body reader', async () => {
    // Each from its own address: the verify group allows 3 a minute per client here.
    expect((await app.handle(req('POST', '/api/v1/verify', '{not json', '203.0.113.1'))).status).toBe(400);
    expect((await app.handle(req('POST', '/api/v1/verify', { kind: 'x' }, '203.0.113.2'))).status).toBe(422);
    const big: AppRequest = {
      ...req('POST', '/api/v1/verify', undefined, '203.0.113.3'),
      body: async () => Promise.reject(new SvcError('too_large', 'payload over 2 MB')),
    };
    expect((await app.handle(big)).status).toBe(413);
  });
});

describe('CBOM keys after a rotation', () => {
  it('the retired key stays listed as deactivated, the new one is active', async () => {
    const before = json(await app.handle(req('GET', '/api/cbom?format=cyclonedx', undefined, '192.0.2.50')));
    const answerKeys = (b: any) =>
      b.components
        .filter((c: any) => c['bom-ref'].startsWith('crypto/key/answer/'))
        .map((c: any) => c.cryptoProperties.relatedCryptoMaterialProperties);
    expect(answerKeys(before).map((k: any) => k.state)).toEqual(['active']);
    Keyring.generate(join(dir, 'keys'), { roles: ['answer'], rotate: true });
    const ring = Keyring.load(join(dir, 'keys')).ring;
    const cfg = loadConfig({ SVC_DATA_DIR: dir, SVC_LOG: '0' });
    const executor = inlineExecutor({ service: 'svc', trustedKeys: pinnedKeys(ring, names, false) });
    const rotated = createApp({
      cfg,
      names,
      ring,
      executor,
      council: new CouncilProbe(() => null, {}),
      ledger: null,
      log: () => {},
      version: '0',
      now: () => now,
    });
    const after = answerKeys(json(await rotated.handle(req('GET', '/api/cbom?format=cyclonedx'))));
    expect(after.map((k: any) => k.state)).toEqual(['active', 'deactivated']);
    expect(after[1].id).toBe(answerKeys(before)[0].id);
  });
});

describe('rate limits with an injected clock (no waiting)', () => {
  it('429 with Retry-After past the limit; allowed again once the window slides past', async () => {
    const ip = '198.51.100.7';
    const codes: number[] = [];
    for (let i = 0; i < 4; i++) codes.push((await app.handle(req('POST', '/api/v1/verify', { kind: 'x' }, ip))).status);
    expect(codes).toEqual([422, 422, 422, 429]);
    const limited = await app.handle(req('POST', '/api/v1/verify', { kind: 'x' }, ip));
    const wait = Number(limited.headers?.['retry-after']);
    expect(wait).toBeGreaterThanOrEqual(1);
    expect(wait).toBeLessThanOrEqual(60);
    // Groups are apart: model-plane keys have their own budget of 2.
    expect((await app.handle(req('GET', '/v1/provenance/pubkeys', undefined, ip))).status).toBe(200);
    expect((await app.handle(req('GET', '/v1/provenance/pubkeys', undefined, ip))).status).toBe(200);
    expect((await app.handle(req('GET', '/v1/provenance/pubkeys', undefined, ip))).status).toBe(429);
    now += wait * 1000;
    expect((await app.handle(req('POST', '/api/v1/verify', { kind: 'x' }, ip))).status).toBe(422);
  });
});
