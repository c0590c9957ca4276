// The OpenAPI document as strangers use it: clean under Redocly's recommended rules, and a client
// generated from it (openapi-typescript types + openapi-fetch) driving every operation against a
// live server, where every response validates against the schema and headers it documents.
import { readFileSync } from 'node:fs';
import { namesFor, type VerifyResponse } from '@svc/core';
import { sha256, toBase64Url, toHex, utf8 } from '@svc/core/primitives';
import { mlDsa87Signer, readCoseKeySet } from '@svc/core/envelope';
import { signStatement, statementLeaf } from '@svc/core/scitt';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import Ajv2020 from 'ajv/dist/2020.js';
import createClient from 'openapi-fetch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openapiJson, openapiTypes } from '@svc/tools/openapi-types';
import { Issuer, Keyring, ensureKeys, openApiDocument, openLedger } from '../src/internal.js';
import type { paths } from './generated/openapi.js';
import { boot, type Booted } from './support/harness.js';

let s: Booted;
let doc: any;
let client: ReturnType<typeof createClient<paths>>;
const seen = new Set<string>();

beforeAll(async () => {
  s = await boot({ rate: { verify: 0, read: 0, modelKeys: 0, tiles: 0 } });
  doc = await (await fetch(`${s.url}/openapi.json`)).json();
  client = createClient<paths>({ baseUrl: s.url });
});
afterAll(async () => s?.stop());

const ajv = new Ajv2020({ strict: false, allErrors: true });
let compiled = false;

/** Check one live answer against what the document says of that operation and status. */
async function conforms(method: string, path: string, res: Response, body: unknown) {
  if (!compiled) {
    ajv.addSchema(doc, 'openapi.json');
    compiled = true;
  }
  seen.add(`${method} ${path}`);
  const op = doc.paths[path][method];
  const documented = op.responses[String(res.status)];
  expect(documented, `${method} ${path} answered ${res.status}, which it does not document`).toBeDefined();
  for (const [name, h] of Object.entries<any>(documented.headers ?? {})) {
    if (name === 'Retry-After' && res.status === 503) continue; // only on an overloaded queue
    const v = res.headers.get(name);
    expect(v, `${method} ${path} ${res.status} header ${name}`).not.toBeNull();
    if (h.schema?.const !== undefined) expect(v).toBe(h.schema.const);
  }
  if (!documented.content) return;
  const type = (res.headers.get('content-type') ?? '').split(';')[0]!.trim();
  const media = documented.content[type];
  expect(media, `${method} ${path} ${res.status} content type ${type}`).toBeDefined();
  // Bytes: their form is the tile and envelope tests' business.
  if (
    [
      'application/octet-stream',
      'application/cose-key-set',
      'application/cbor',
      'application/cose',
      'application/concise-problem-details+cbor',
    ].includes(type)
  )
    return;
  const pointer = `openapi.json#/paths/${path.replaceAll('~', '~0').replaceAll('/', '~1')}/${method}/responses/${res.status}/content/${type.replaceAll('/', '~1')}/schema`;
  const validate = ajv.getSchema(pointer)!;
  expect(validate(body), `${method} ${path} ${res.status}: ${JSON.stringify(validate.errors?.slice(0, 3))}`).toBe(true);
}

describe('OpenAPI document', () => {
  it('has no error and no warning under Redocly recommended rules', async () => {
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source: JSON.stringify(openApiDocument('svc', '0.1.0')), absoluteRef: 'openapi.json', config });
    expect(problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`)).toEqual([]);
  });

  it('the committed client types are what openapi-typescript makes of it today', async () => {
    const committed = readFileSync(new URL('./generated/openapi.ts', import.meta.url), 'utf8');
    expect(committed === (await openapiTypes()), 'stale: run npm run openapi:types').toBe(true);
    // The document itself, in the repository for readers without a server, is the one served.
    const inRepo = readFileSync(new URL('../../../docs/openapi.json', import.meta.url), 'utf8');
    expect(inRepo === openapiJson(), 'stale docs/openapi.json: run npm run openapi:types').toBe(true);
    expect(JSON.parse(inRepo)).toEqual(doc);
  });

  it('a generated client drives every operation; every live answer matches its documented schema and headers', async () => {
    const ring = Keyring.load(`${s.dir}/keys`).ring;
    // Issued into the server's own log, as svc issue would, so the ledger has leaves to prove.
    const ledger = await openLedger(
      s.cfg,
      namesFor('svc'),
      ensureKeys(s.cfg, () => {}),
      () => {},
      { background: false, batchMs: 0 },
    );
    const issuer = new Issuer(ring, namesFor('svc'), ledger);
    const bundle = await issuer.issue({ answer: 'Paris.', prompt: 'Capital of France?' });
    await issuer.issue({ answer: 'Rome.' });
    await ledger.close();

    let r: { data?: unknown; error?: unknown; response: Response } = await client.POST('/api/v1/verify', { body: bundle as never });
    await conforms('post', '/api/v1/verify', r.response, r.data);
    expect((r.data as VerifyResponse).verdict.overallOk).toBe(true);
    r = await client.POST('/api/v1/verify', { body: { kind: 'nothing' } as never });
    await conforms('post', '/api/v1/verify', r.response, r.error);
    expect(r.response.status).toBe(422);

    r = await client.POST('/api/v1/evidence', { body: bundle as never, params: { query: { org: 'Example' } } });
    await conforms('post', '/api/v1/evidence', r.response, r.data);
    r = await client.POST('/api/v1/evidence', { body: bundle as never, params: { query: { org: 'x'.repeat(201) } } });
    await conforms('post', '/api/v1/evidence', r.response, r.error);

    for (const path of ['/api/provenance/pubkey', '/v1/provenance/pubkeys', '/api/v1/evidence-signer', '/openapi.json'] as const) {
      r = await client.GET(path);
      await conforms('get', path, r.response, r.data);
    }
    r = await client.GET('/api/provenance/jwks.json', { params: { query: { kind: 'answer' } }, parseAs: 'json' });
    await conforms('get', '/api/provenance/jwks.json', r.response, r.data);
    r = await client.GET('/api/provenance/jwks.json', { params: { query: { kind: 'every' as never } } });
    await conforms('get', '/api/provenance/jwks.json', r.response, r.error);
    r = await client.GET('/api/provenance/cose-keys', { parseAs: 'arrayBuffer' });
    await conforms('get', '/api/provenance/cose-keys', r.response, r.data);
    r = await client.GET('/api/cbom');
    await conforms('get', '/api/cbom', r.response, r.data);
    r = await client.GET('/api/cbom', { params: { query: { format: 'cyclonedx' } }, parseAs: 'json' });
    await conforms('get', '/api/cbom', r.response, r.data);
    r = await client.GET('/api/cbom', { params: { query: { format: 'xml' as never } } });
    await conforms('get', '/api/cbom', r.response, r.error);
    // No seats are configured here, so the probe answers 503 {ok:false}, as documented.
    r = await client.GET('/api/status/council');
    await conforms('get', '/api/status/council', r.response, r.data ?? r.error);

    r = await client.GET('/api/transparency/ledger');
    await conforms('get', '/api/transparency/ledger', r.response, r.data);
    r = await client.POST('/api/transparency/ledger/inclusion', { body: { answer: 'Rome.' } });
    await conforms('post', '/api/transparency/ledger/inclusion', r.response, r.data);
    expect((r.data as any).found).toBe(true);
    r = await client.POST('/api/transparency/ledger/inclusion', { body: { answer: 'a', leaf: 'b' } });
    await conforms('post', '/api/transparency/ledger/inclusion', r.response, r.error);
    r = await client.GET('/api/transparency/ledger/consistency', { params: { query: { first: 1 } } });
    await conforms('get', '/api/transparency/ledger/consistency', r.response, r.data ?? r.error);
    expect(r.response.status).toBe(200);
    r = await client.GET('/api/transparency/ledger/consistency', { params: { query: { first: 1, signed: '1' } } });
    await conforms('get', '/api/transparency/ledger/consistency', r.response, r.data ?? r.error);
    expect(r.response.status).toBe(200);
    r = await client.GET('/api/transparency/ledger/consistency', { params: { query: { first: 99 } } });
    await conforms('get', '/api/transparency/ledger/consistency', r.response, r.error);
    r = await client.GET('/api/transparency/ledger/history', { params: { query: { verifiable: '1' } } });
    await conforms('get', '/api/transparency/ledger/history', r.response, r.data);

    r = await client.GET('/api/transparency/tlog/checkpoint', { parseAs: 'text' });
    await conforms('get', '/api/transparency/tlog/checkpoint', r.response, r.data);
    expect(r.data).toMatch(/^svc-ledger\.invalid\/[0-9a-f]{16}\n2\n/);
    r = await client.GET('/api/transparency/tlog/vkeys', { parseAs: 'text' });
    await conforms('get', '/api/transparency/tlog/vkeys', r.response, r.data);
    r = await client.GET('/healthz');
    await conforms('get', '/healthz', r.response, r.data);
    r = await client.GET('/readyz');
    await conforms('get', '/readyz', r.response, r.data ?? r.error);
    r = await client.GET('/metrics', { parseAs: 'text' });
    await conforms('get', '/metrics', r.response, r.data);
    expect(r.data).toContain('svc_http_requests_total');
    r = await client.GET('/api/transparency/tlog/witnessing');
    await conforms('get', '/api/transparency/tlog/witnessing', r.response, r.data);
    expect(r.data).toEqual({ enabled: false });
    // This server witnesses nothing: the witness routes answer 404.
    r = await client.POST('/api/transparency/witness/add-checkpoint', {
      body: 'old 0\n\nx\n',
      bodySerializer: (b: string) => b,
      parseAs: 'text',
    });
    await conforms(
      'post',
      '/api/transparency/witness/add-checkpoint',
      r.response,
      typeof r.error === 'string' ? JSON.parse(r.error) : r.error,
    );
    r = await client.POST('/api/transparency/witness/sign-subtree', {
      body: 'subtree 0 1\n\nx\n',
      bodySerializer: (b: string) => b,
      parseAs: 'text',
    });
    await conforms(
      'post',
      '/api/transparency/witness/sign-subtree',
      r.response,
      typeof r.error === 'string' ? JSON.parse(r.error) : r.error,
    );
    r = await client.GET('/api/transparency/witness/vkeys', { parseAs: 'text' });
    await conforms('get', '/api/transparency/witness/vkeys', r.response, typeof r.error === 'string' ? JSON.parse(r.error) : r.error);
    r = await client.GET('/api/transparency/witness/{origin_hash}/checkpoint', { params: { path: { origin_hash: 'ab'.repeat(32) } } });
    await conforms('get', '/api/transparency/witness/{origin_hash}/checkpoint', r.response, r.error);
    // A tile path keeps its slashes, which a generated client would percent-encode: fetched as is.
    for (const [tile, status] of [
      ['0/000.p/2', 200],
      ['0/000.p/3', 404],
    ] as const) {
      const res = await fetch(`${s.url}/api/transparency/tlog/tile/${tile}`);
      expect(res.status).toBe(status);
      await conforms('get', '/api/transparency/tlog/tile/{tile}', res, status === 200 ? undefined : await res.json());
    }

    // SCRAPI (after the tiles, as registering grows the tree): CBOR and COSE bodies, fetched as bytes; their form is test/scitt's business.
    for (const path of ['/.well-known/transparency-configuration', '/.well-known/scitt-keys']) {
      const res = await fetch(s.url + path);
      expect(res.status).toBe(200);
      await conforms('get', path, res, undefined);
    }
    const [key] = readCoseKeySet(new Uint8Array(await (await fetch(`${s.url}/.well-known/scitt-keys`)).arrayBuffer()));
    const kid = toBase64Url(key!.get(2) as Uint8Array);
    for (const [k, status] of [
      [kid, 200],
      ['none', 404],
    ] as const) {
      const res = await fetch(`${s.url}/.well-known/scitt-keys/${k}`);
      expect(res.status).toBe(status);
      await conforms('get', '/.well-known/scitt-keys/{kid}', res, undefined);
    }
    const h = sha256(utf8('Rome.'));
    const statement = signStatement(
      { answerSha256: h, iss: 'svc', sub: 'urn:svc:answer', iat: 1, typ: 'application/vnd.svc.answer-statement+cose' },
      mlDsa87Signer(ring.get('answer')),
    );
    for (const [body, status] of [
      [statement, 201],
      [utf8('junk'), 400],
    ] as const) {
      const res = await fetch(`${s.url}/entries`, {
        method: 'POST',
        body: body as BodyInit,
        headers: { 'content-type': 'application/cose' },
        redirect: 'manual',
      });
      expect(res.status).toBe(status);
      await conforms('post', '/entries', res, undefined);
    }
    for (const [id, status] of [
      [toHex(statementLeaf(statement)), 200],
      ['f'.repeat(64), 404],
      ['x', 400],
    ] as const) {
      const res = await fetch(`${s.url}/entries/${id}`, { redirect: 'manual' });
      expect(res.status).toBe(status);
      await conforms('get', '/entries/{id}', res, undefined);
    }
    // Every documented preflight (the six interface.md lists, and one per other route).
    for (const path of Object.keys(doc.paths).filter((p) => doc.paths[p].options)) {
      r = await client.OPTIONS(path as '/api/v1/verify');
      await conforms('options', path, r.response, undefined);
    }

    const documented = Object.entries<any>(doc.paths).flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m} ${p}`));
    expect([...seen].sort()).toEqual(documented.sort());
  });
});
