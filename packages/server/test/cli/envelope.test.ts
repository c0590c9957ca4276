// `svc verify` of a bare envelope (#33): a JWS file, a binary COSE_Sign1 and a base64url one, each
// checked against a key set from a file or from a running server; exit 0 when every signature
// verifies, 1 when one does not, 2 with no keys to check it by.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromBase64Url } from '@svc/core/primitives';
import { issueProof } from '@svc/core/issue';
import { coseKey, coseKeySet, envelopeMaker, publicJwk } from '@svc/core/envelope';
import { testKeys } from '@svc/core/testing';
import { boot, type Booted } from '../support/harness.js';
import { runSvc } from '../support/svc-cli.js';

const K = testKeys('cli-envelope');
const ED = new Uint8Array(32).fill(9);
const maker = envelopeMaker({ formats: ['jws', 'cose'], ed25519: ED });
const bundle = issueProof(
  { answer: 'Envelope on the command line.', model: 'm', ts: 1_767_225_600 },
  { receipt: K.answer, envelopes: maker },
);
const env = bundle.receipt.envelopes as {
  jws: { payload: string; signatures: { protected: string; signature: string }[] };
  cose: string[];
};
let dir: string;
let s: Booted;
const file = (name: string, body: string | Uint8Array) => {
  const p = join(dir, name);
  writeFileSync(p, body);
  return p;
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-cli-envelope-'));
  s = await boot();
}, 60_000);
afterAll(async () => {
  await s?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('svc verify of an envelope', () => {
  it('a JWS file and a COSE_Sign1 (binary and base64url) verify against key-set files: exit 0', async () => {
    const jwks = file(
      'jwks.json',
      JSON.stringify({ keys: [publicJwk('ML-DSA-87', K.answer.publicKey), publicJwk('Ed25519', maker.ed25519PublicKey!)] }),
    );
    const cose = file('keys.cose', coseKeySet([coseKey('ML-DSA-87', K.answer.publicKey), coseKey('Ed25519', maker.ed25519PublicKey!)]));
    const jws = await runSvc(['verify', file('r.jws', JSON.stringify(env.jws)), '--keys', jwks]);
    expect(jws.code, jws.err).toBe(0);
    expect(jws.out).toMatch(/Envelope: JWS .*typ vnd\.svc\.answer-receipt\+json/);
    expect(jws.out).toMatch(/ML-DSA-87 ok[\s\S]*Ed25519 ok/);
    expect(jws.out).toContain(`answer_sha256 ${bundle.receipt.answer_sha256}`);
    for (const body of [fromBase64Url(env.cose[0])!, `${env.cose[1]}\n`]) {
      const r = await runSvc(['verify', file('r.cose', body), '--keys', cose, '--json']);
      expect(r.code, r.err).toBe(0);
      expect(JSON.parse(r.out)).toMatchObject({ format: 'cose', ok: true, payload: { answer_sha256: bundle.receipt.answer_sha256 } });
    }
  });

  it("against the server's key sets (--keys-url): another issuer's envelope is not verified (exit 1)", async () => {
    const r = await runSvc(['verify', file('x.jws', JSON.stringify(env.jws)), '--keys-url', s.url]);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/Integrity: FAIL \(unknown_key\)/);
    const c = await runSvc(['verify', file('x.cose', fromBase64Url(env.cose[0])!), '--keys-url', s.url]);
    expect(c.code).toBe(1);
  });

  it('a changed payload is exit 1; no keys at all is a usage error (exit 2)', async () => {
    const jwks = file(
      'j2.json',
      JSON.stringify({ keys: [publicJwk('ML-DSA-87', K.answer.publicKey), publicJwk('Ed25519', maker.ed25519PublicKey!)] }),
    );
    const bytes = fromBase64Url(env.jws.payload)!;
    bytes[2]! ^= 1;
    const changed = { ...env.jws, payload: Buffer.from(bytes).toString('base64url') };
    const r = await runSvc(['verify', file('bad.jws', JSON.stringify(changed)), '--keys', jwks]);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/bad_signature/);
    const none = await runSvc(['verify', file('n.jws', JSON.stringify(env.jws))]);
    expect(none.code).toBe(2);
    expect(none.err).toMatch(/names its key only by kid/);
  });

  it('hostile files: a damaged key set is a usage error (2); a huge, deep or truncated envelope is a failed check (1), never a crash', async () => {
    const jws = file('h.jws', JSON.stringify(env.jws));
    for (const [name, body] of [
      ['bad.json', '{"keys": [1, "x", {"kty": "AKP"}'],
      ['bad.cose', new Uint8Array([0x9f, 0x01])],
    ] as const) {
      const r = await runSvc(['verify', jws, '--keys', file(name, body)]);
      expect([r.code, r.err]).toEqual([2, expect.stringMatching(/is not a (JWK Set|COSE_KeySet)/)]);
    }
    const cose = file('k.cose', coseKeySet([coseKey('ML-DSA-87', K.answer.publicKey)]));
    const bytes = fromBase64Url(env.cose[0])!;
    const deep = new Uint8Array([0xd2, 0x84, ...new Uint8Array(2 * 1024 * 1024).fill(0x81), 0x00]);
    for (const body of [
      bytes.subarray(0, bytes.length - 100),
      deep,
      new Uint8Array([0xd2, ...new Uint8Array(3 * 1024 * 1024).fill(0x41)]),
    ]) {
      const r = await runSvc(['verify', file('h.cose', body), '--keys', cose]);
      expect(r.code, r.err).toBe(1);
      expect(r.out).toMatch(/Integrity: FAIL \((malformed|too_large)\)/);
    }
  });
});
