// Integration over real HTTP: every stateless endpoint, status, header and limit of interface.md.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { Validator } from '@seriousme/openapi-schema-validator';
import { issueProof, issueRun, signTreeHead } from '@svc/core/issue';
import { testKeys } from '@svc/core/testing';
import { Issuer, Keyring } from '../src/internal.js';
import { namesFor } from '@svc/core';
import { boot, call, expectSchema, schemas, type Booted } from './support/harness.js';

let s: Booted;
const K = testKeys('server-tests');

beforeAll(async () => {
  s = await boot({ rate: { verify: 1000, read: 1000, modelKeys: 1000, tiles: 0 } });
});
afterAll(async () => s?.stop());

function ownBundle(answer: string, prompt?: string) {
  const ring = Keyring.load(`${s.dir}/keys`).ring;
  return new Issuer(ring, namesFor('svc'), null).issue({ answer, ...(prompt ? { prompt } : {}) });
}

describe('POST /api/v1/verify', () => {
  it("verifies and recognises a bundle signed with the server's own keys", async () => {
    const r = await call(s.url, '/api/v1/verify', { json: await ownBundle('Paris.', 'Capital?') });
    expect(r.status).toBe(200);
    expectSchema(schemas.VerifyResponse, r.body);
    expect(r.body.verdict.overallOk).toBe(true);
    expect(r.body.signerRecognized).toBe(true);
    expect(r.body.verdict.bridge.secondaryOk).toBe(true);
    expect(r.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('a foreign signature verifies but is not recognised; a failing bundle is a 200 verdict', async () => {
    const foreign = issueProof({ answer: 'x', model: 'm', ts: 1 }, { receipt: K.answer });
    const a = await call(s.url, '/api/v1/verify', { json: foreign });
    expect(a.status).toBe(200);
    expect(a.body.verdict.overallOk).toBe(true);
    expect(a.body.signerRecognized).toBe(false);
    const b = await call(s.url, '/api/v1/verify', { json: { ...foreign, answer: 'y' } });
    expect(b.status).toBe(200);
    expectSchema(schemas.VerifyResponse, b.body);
    expect(b.body.verdict.overallOk).toBe(false);
  });

  it('400 invalid JSON, 422 unknown kind / wrapper / too many turns, each with {error}', async () => {
    const bad = await call(s.url, '/api/v1/verify', { method: 'POST', body: '{"kind":', headers: { 'content-type': 'application/json' } });
    expect(bad.status).toBe(400);
    expectSchema(schemas.ErrorBody, bad.body);
    for (const [doc, code] of [
      [{ kind: 'nope' }, 'unknown_kind'],
      [{ signed_tree_head: signTreeHead({ log: 'l', tree_size: 0, root_hash: '00'.repeat(32), timestamp: 0 }, K.sth) }, 'sth_wrapper'],
      [{ kind: 'svc-transcript', turns: Array(201).fill({}) }, 'too_many_turns'],
    ] as const) {
      const r = await call(s.url, '/api/v1/verify', { json: doc });
      expect(r.status).toBe(422);
      expect(r.body.code).toBe(code);
      expect(typeof r.body.error).toBe('string');
    }
  });

  it('413 for 2 MB + 1 byte, refused from Content-Length before the body is read', async () => {
    const big = 'x'.repeat(2 * 1024 * 1024 + 1);
    const r = await call(s.url, '/api/v1/verify', { method: 'POST', body: big, headers: { 'content-type': 'application/json' } });
    expect(r.status).toBe(413);
    expectSchema(schemas.ErrorBody, r.body);
    // Declared too large, body never sent: the answer still comes, so nothing waited for the body.
    const status = await new Promise<number>((resolve, reject) => {
      const u = new URL(s.url);
      const req = request(
        {
          host: u.hostname,
          port: u.port,
          path: '/api/v1/verify',
          method: 'POST',
          headers: { 'content-length': String(2 * 1024 * 1024 + 1) },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode!);
        },
      );
      req.on('error', reject);
      req.flushHeaders();
    });
    expect(status).toBe(413);
  });

  it('413 on every POST endpoint for 2 MB + 1 byte', async () => {
    const big = 'x'.repeat(2 * 1024 * 1024 + 1);
    for (const p of ['/api/v1/evidence', '/api/transparency/ledger/inclusion']) {
      const r = await call(s.url, p, { method: 'POST', body: big, headers: { 'content-type': 'application/json' } });
      expect(r.status, p).toBe(413);
      expectSchema(schemas.ErrorBody, r.body);
    }
  });

  it('the body reader never holds more than the limit', async () => {
    const { Readable } = await import('node:stream');
    const { readLimited } = await import('../src/internal.js');
    let produced = 0;
    const chunk = new Uint8Array(64 * 1024);
    const src = new Readable({
      read() {
        produced += chunk.length;
        this.push(produced > 64 * 1024 * 1024 ? null : chunk);
      },
    });
    await expect(readLimited(src, undefined, 1024 * 1024)).rejects.toMatchObject({ code: 'too_large', status: 413 });
    // Reading stopped right after the limit was crossed, far short of the 64 MiB on offer.
    expect(produced).toBeLessThan(4 * 1024 * 1024);
    await expect(readLimited(Readable.from([new Uint8Array(10)]), '99999999', 1024)).rejects.toMatchObject({ code: 'too_large' });
  });

  it('a chunked body that grows past 2 MB is cut off with 413', async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const u = new URL(s.url);
      const req = request(
        { host: u.hostname, port: u.port, path: '/api/v1/verify', method: 'POST', headers: { 'transfer-encoding': 'chunked' } },
        (res) => {
          res.resume();
          resolve(res.statusCode!);
        },
      );
      req.on('error', () => {});
      const chunk = Buffer.alloc(256 * 1024, 0x20);
      let sent = 0;
      const pump = () => {
        while (sent < 16 * 1024 * 1024) {
          sent += chunk.length;
          if (!req.write(chunk)) return req.once('drain', pump);
        }
        req.end();
      };
      pump();
      setTimeout(() => reject(new Error('no answer')), 20_000).unref();
    });
    expect(status).toBe(413);
  });
});

describe('POST /api/v1/evidence', () => {
  it('returns an AI Provenance Record with the org stamped in', async () => {
    const r = await call(s.url, `/api/v1/evidence?org=${encodeURIComponent('Example GmbH')}`, { json: await ownBundle('Rome.') });
    expect(r.status).toBe(200);
    expectSchema(schemas.AiProvenanceRecord, r.body);
    expect(r.body.subject).toEqual({ organisation: 'Example GmbH' });
    expect(r.body.attested.signed).toBe(true);
    expect(r.body.attested.signer_recognized).toBe(true);
    // E5: the record re-verifies unchanged.
    const v = await call(s.url, '/api/v1/verify', { json: r.body });
    expect(v.status).toBe(200);
    expect(v.body.record).toEqual({ schema: 'svc-ai-provenance-record', summaryOk: true, unattested: ['generated', 'notes', 'subject'] });
  });

  it('E2: a failing bundle still gets a record with signed:false; E3: run records', async () => {
    const r = await call(s.url, '/api/v1/evidence', { json: { ...(await ownBundle('A.')), answer: 'B.' } });
    expect(r.status).toBe(200);
    expect(r.body.attested.signed).toBe(false);
    const run = issueRun({ id: 'r', goal: 'g', steps: [] }, { model: 'm', ts: 1 }, { receipt: K.autopilot });
    const rr = await call(s.url, '/api/v1/evidence', { json: run });
    expect(rr.body.record_type).toBe('autopilot_run');
  });

  it('422 for org over 200 characters and for kinds a record is not made from; 400 invalid JSON', async () => {
    const long = await call(s.url, `/api/v1/evidence?org=${'x'.repeat(201)}`, { json: await ownBundle('C.') });
    expect(long.status).toBe(422);
    expect(long.body.code).toBe('invalid_org');
    const ok200 = await call(s.url, `/api/v1/evidence?org=${'x'.repeat(200)}`, { json: await ownBundle('C.') });
    expect(ok200.status).toBe(200);
    const sth = await call(s.url, '/api/v1/evidence', {
      json: signTreeHead({ log: 'l', tree_size: 0, root_hash: '00'.repeat(32), timestamp: 0 }, K.sth),
    });
    expect(sth.status).toBe(422);
    const bad = await call(s.url, '/api/v1/evidence', { method: 'POST', body: 'nope' });
    expect(bad.status).toBe(400);
  });
});

describe('key endpoints, CBOM, OpenAPI', () => {
  it('GET /api/provenance/pubkey: every context, cached one hour', async () => {
    const r = await call(s.url, '/api/provenance/pubkey');
    expect(r.status).toBe(200);
    expectSchema(schemas.PubkeysResponse, r.body);
    expect(r.headers.get('cache-control')).toBe('public, max-age=3600');
    expect(r.body.configured).toBe(true);
    expect(r.body.context).toBe('svc-provenance-v1');
    expect(new Set(r.body.keys.map((k: any) => k.context))).toEqual(
      new Set(['svc-provenance-v1', 'svc-autopilot-v1', 'svc-export-v1', 'svc-sth-v1']),
    );
  });

  it('GET /v1/provenance/pubkeys: model-plane keys with 8-byte key ids', async () => {
    const r = await call(s.url, '/v1/provenance/pubkeys');
    expect(r.status).toBe(200);
    expectSchema(schemas.ModelPlaneKeys, r.body);
    expect(r.body.keys.map((k: any) => [k.role, k.alg])).toEqual([
      ['primary', 'ML-DSA-87'],
      ['cosign', 'Falcon-1024'],
    ]);
    for (const k of r.body.keys) expect(k.key_id).toMatch(/^[0-9a-f]{16}$/);
  });

  it('GET /api/v1/evidence-signer: fingerprints and a self-attestation notice', async () => {
    const r = await call(s.url, '/api/v1/evidence-signer');
    expect(r.status).toBe(200);
    expectSchema(schemas.EvidenceSigner, r.body);
    expect(r.body.notice).toMatch(/not a certification/);
    for (const k of Object.values(r.body.keys) as any[]) expect(k.fingerprint).toMatch(/^[0-9a-f]{64}$/);
  });

  it('GET /api/cbom: the interface shape, and strict CycloneDX 1.6 on request, with the same facts', async () => {
    const r = await call(s.url, '/api/cbom');
    expect(r.status).toBe(200);
    expectSchema(schemas.Cbom, r.body);
    expect(r.headers.get('cache-control')).toBe('public, max-age=3600');
    expect(r.headers.get('vary')).toBe('accept');
    expect(r.body.cryptography.map((c: any) => c.name)).toEqual(
      expect.arrayContaining(['ML-DSA-87', 'SLH-DSA-SHA2-256f', 'Falcon-1024', 'SHA-256']),
    );
    expect(r.body.disclaimer).toMatch(/not a certification/);
    const CDX = await import('@cyclonedx/cyclonedx-library');
    const validator = new CDX.Validation.JsonStrictValidator(CDX.Spec.Version.v1dot6);
    // The strict representation, byte for byte as served, by query and by Accept.
    for (const init of [
      { path: '/api/cbom?format=cyclonedx' },
      { path: '/api/cbom', headers: { accept: 'application/vnd.cyclonedx+json' } },
    ]) {
      const res = await fetch(s.url + init.path, { headers: init.headers ?? {} });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/vnd.cyclonedx+json; version=1.6');
      const text = await res.text();
      expect(await validator.validate(text)).toBeNull();
      const cdx = JSON.parse(text);
      expect(cdx.cryptography).toBeUndefined();
      // The same facts in both: every component and every dependency.
      expect(cdx.components).toEqual(r.body.components);
      expect(cdx.dependencies).toEqual(r.body.dependencies);
      expect(cdx.properties.find((p: any) => p.name === 'svc:disclaimer').value).toBe(r.body.disclaimer);
    }
    const byName = (n: string) => r.body.components.find((c: any) => c.name === n);
    // OIDs as NIST's Computer Security Objects Register assigns them (id-ml-dsa-87 = ...3.19,
    // id-slh-dsa-sha2-256f = ...3.25; ...3.26 is SLH-DSA-SHAKE-128s), from the register, not the code.
    expect(byName('ML-DSA-87').cryptoProperties.oid).toBe('2.16.840.1.101.3.4.3.19');
    expect(byName('SLH-DSA-SHA2-256f').cryptoProperties.oid).toBe('2.16.840.1.101.3.4.3.25');
    expect(byName('SHA-256').cryptoProperties.oid).toBe('2.16.840.1.101.3.4.2.1');
    expect(byName('ML-DSA-87').cryptoProperties.algorithmProperties).toMatchObject({
      classicalSecurityLevel: 256,
      nistQuantumSecurityLevel: 5,
    });
    // Every published key is related crypto material pointing at its algorithm.
    const published = (await call(s.url, '/api/provenance/pubkey')).body.keys.map((k: any) => k.key_id);
    const keyIds = r.body.components
      .filter((c: any) => c.cryptoProperties?.assetType === 'related-crypto-material')
      .map((c: any) => c.cryptoProperties.relatedCryptoMaterialProperties);
    for (const id of published) expect(keyIds.map((k: any) => k.id)).toContain(id);
    expect(keyIds.every((k: any) => k.state === 'active' && k.algorithmRef.startsWith('crypto/algorithm/'))).toBe(true);
    // The libraries that compute them, with the versions the core pins, and what each provides.
    const coreDeps = JSON.parse(readFileSync(new URL('../../core/package.json', import.meta.url), 'utf8')).dependencies;
    expect(byName('@noble/post-quantum')).toMatchObject({ type: 'library', version: coreDeps['@noble/post-quantum'] });
    const provides = Object.fromEntries(r.body.dependencies.filter((d: any) => d.provides).map((d: any) => [d.ref, d.provides]));
    expect(provides['lib/@noble/hashes']).toEqual(['crypto/algorithm/SHA-256']);
    expect(Object.values(provides).flat().sort()).toEqual(r.body.cryptography.map((c: any) => `crypto/algorithm/${c.name}`).sort());
    // A broken document is caught by the same validator, so the check can fail.
    const broken = await (await fetch(`${s.url}/api/cbom?format=cyclonedx`)).json();
    broken.components[0].cryptoProperties.assetType = 'not-an-asset';
    expect(await validator.validate(JSON.stringify(broken))).not.toBeNull();
    expect((await call(s.url, '/api/cbom?format=xml')).status).toBe(422);
  });

  it('GET /openapi.json is a valid OpenAPI 3.1 document listing every endpoint', async () => {
    const r = await call(s.url, '/openapi.json');
    expect(r.status).toBe(200);
    expect(r.body.openapi).toBe('3.1.0');
    const v = new Validator();
    const res = await v.validate(r.body);
    expect(res.valid, String(JSON.stringify(res.errors)).slice(0, 800)).toBe(true);
    expect(Object.keys(r.body.paths)).toEqual(
      expect.arrayContaining([
        '/api/v1/verify',
        '/api/v1/evidence',
        '/api/provenance/pubkey',
        '/v1/provenance/pubkeys',
        '/api/v1/evidence-signer',
        '/api/cbom',
        '/api/status/council',
        '/api/transparency/ledger',
        '/api/transparency/ledger/inclusion',
        '/api/transparency/ledger/consistency',
        '/api/transparency/ledger/history',
      ]),
    );
  });
});

describe('HTTP conventions', () => {
  it('OPTIONS preflight is 204 with no body on every POST and ledger path', async () => {
    for (const p of [
      '/api/v1/verify',
      '/api/v1/evidence',
      '/api/transparency/ledger',
      '/api/transparency/ledger/inclusion',
      '/api/transparency/ledger/consistency',
      '/api/transparency/ledger/history',
    ]) {
      const r = await fetch(s.url + p, { method: 'OPTIONS' });
      expect(r.status, p).toBe(204);
      expect(await r.text()).toBe('');
      expect(r.headers.get('access-control-allow-origin')).toBe('*');
      expect(r.headers.get('access-control-allow-methods')).toContain('POST');
    }
  });

  it('405 with Allow for other methods, 404 for unknown paths, CORS everywhere', async () => {
    const r = await call(s.url, '/api/v1/verify');
    expect(r.status).toBe(405);
    expect(r.headers.get('allow')).toContain('POST');
    expectSchema(schemas.ErrorBody, r.body);
    const d = await call(s.url, '/api/cbom', { method: 'DELETE' });
    expect(d.status).toBe(405);
    const n = await call(s.url, '/nope');
    expect(n.status).toBe(404);
    expect(n.headers.get('access-control-allow-origin')).toBe('*');
  });
});

describe('rate limits', () => {
  it('429 with Retry-After past the per-IP limit, per endpoint group', async () => {
    const t = await boot({ rate: { verify: 3, read: 5, modelKeys: 2, tiles: 0 } });
    try {
      const codes: number[] = [];
      for (let i = 0; i < 5; i++) codes.push((await call(t.url, '/api/v1/verify', { json: { kind: 'x' } })).status);
      expect(codes).toEqual([422, 422, 422, 429, 429]);
      const limited = await call(t.url, '/api/v1/verify', { json: {} });
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
      expectSchema(schemas.ErrorBody, limited.body);
      // Other groups keep their own budget.
      expect((await call(t.url, '/v1/provenance/pubkeys')).status).toBe(200);
      expect((await call(t.url, '/v1/provenance/pubkeys')).status).toBe(200);
      expect((await call(t.url, '/v1/provenance/pubkeys')).status).toBe(429);
      expect((await call(t.url, '/api/cbom')).status).toBe(200);
    } finally {
      await t.stop();
    }
  });
});

describe('keyring', () => {
  it('dev keys are written with 0600 secrets; rotation keeps historic keys published and recognised', async () => {
    const { statSync } = await import('node:fs');
    // Keys the server makes itself (other tests share a copy of one keyring).
    const t = await boot({}, {}, undefined, { freshKeys: true });
    try {
      expect(statSync(`${t.dir}/keys/answer.secret`).mode & 0o777).toBe(0o600);
      expect(statSync(`${t.dir}/keys`).mode & 0o777).toBe(0o700);
      const before = await ownBundleFrom(t.dir, 'old');
      Keyring.generate(`${t.dir}/keys`, { roles: ['answer'], rotate: true });
      const t2 = await boot({ dataDir: t.dir });
      try {
        const keys = (await call(t2.url, '/api/provenance/pubkey')).body.keys.filter((k: any) => k.context === 'svc-provenance-v1');
        expect(keys).toHaveLength(2);
        const r = await call(t2.url, '/api/v1/verify', { json: before });
        expect(r.body.signerRecognized).toBe(true);
      } finally {
        await t2.close();
      }
    } finally {
      await t.stop();
    }
  });
});

function ownBundleFrom(dir: string, answer: string) {
  return new Issuer(Keyring.load(`${dir}/keys`).ring, namesFor('svc'), null).issue({ answer });
}
