// `svc issue --scitt FILE` (#34): the answer's ProofBundle on stdout and, in FILE, a Transparent
// Statement whose receipts are for the log's published checkpoint, read back by the core's verifier
// with only the published keys: the answer key as issuer, the log's COSE keys from the vkeys' keys.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { namesFor, verifyBundle } from '@svc/core';
import { fromBase64Url, sha256, toBase64Url, toHex, utf8 } from '@svc/core/primitives';
import { coseKey } from '@svc/core/envelope';
import { scittChecker, verifyTransparentStatement } from '@svc/core/scitt';
import { parseCheckpoint, parseNote } from '@svc/core/tlog';
import { Keyring, loadConfig, openLedger } from '../../src/internal.js';
import { boot } from '../support/harness.js';
import { runSvc } from '../support/svc-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-cli-scitt-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const writeTo = (name: string, b: Uint8Array) => {
  writeFileSync(join(dir, name), b);
  return join(dir, name);
};

describe('svc issue --scitt', () => {
  it('writes a Transparent Statement that verifies against the checkpoint it was made for', async () => {
    expect((await runSvc(['keygen', '--data-dir', dir])).code).toBe(0);
    const file = join(dir, 'answer.scitt.cose');
    const r = await runSvc(['issue', '--answer', 'Transparent.', '--scitt', file, '--data-dir', dir]);
    expect(r.code, r.err).toBe(0);
    const bundle = JSON.parse(r.out);
    expect(bundle.receipt.answer_sha256).toBe(toHex(sha256(utf8('Transparent.'))));
    // The bundle carries the same Transparent Statement, checked by verifyBundle with scittChecker.
    expect(fromBase64Url(bundle.scitt)).toEqual(new Uint8Array(readFileSync(file)));
    const ring = Keyring.load(join(dir, 'keys')).ring;
    const cfg = loadConfig({ SVC_DATA_DIR: dir, SVC_LOG: '0' });
    const ledger = await openLedger(cfg, namesFor('svc'), ring, () => {}, { background: false });
    const cp = parseCheckpoint(parseNote(await ledger.checkpoint()).text);
    await ledger.close();
    const v = verifyTransparentStatement(new Uint8Array(readFileSync(file)), {
      issuers: [coseKey('ML-DSA-87', ring.publicKeys('answer')[0]!)],
      logs: [
        {
          keys: [coseKey('ML-DSA-44', ring.publicKeys('log-mldsa44')[0]!), coseKey('Ed25519', ring.publicKeys('log-ed25519')[0]!)],
          checkpoint: { size: cp.size, root: cp.root },
        },
      ],
    });
    expect(v.ok, JSON.stringify(v)).toBe(true);
    const logs = [{ keys: [coseKey('ML-DSA-44', ring.publicKeys('log-mldsa44')[0]!)] }];
    const checked = await verifyBundle(bundle, { trustedKeys: [bundle.receiptKey], scitt: scittChecker({ logs }) });
    expect(checked.verdict.overallOk).toBe(true);
    expect((checked.verdict as { scitt?: { ok?: boolean } }).scitt?.ok).toBe(true);
    expect(v.statement.sub).toBe(`urn:svc:answer:${toHex(sha256(utf8('Transparent.')))}`);
    expect(v.receipts.map((x) => x.alg)).toEqual(['ML-DSA-44', 'Ed25519']);
    // Two leaves: the answer's hash and the statement's.
    expect(cp.size).toBe(2);
  });

  it('svc verify reads it with the keys a running server publishes; the server knows it as registered', async () => {
    const s = await boot();
    try {
      const file = join(dir, 'served.scitt.cose');
      const r = await runSvc(['issue', '--answer', 'Served.', '--scitt', file, '--data-dir', s.dir]);
      expect(r.code, r.err).toBe(0);
      const v = await runSvc(['verify', file, '--keys-url', s.url]);
      expect(v.code, v.err + v.out).toBe(0);
      expect(v.out).toMatch(/PASS: the issuer signed it and the log included it/);
      expect(v.out).toMatch(/receipt ML-DSA-44 ok[\s\S]*receipt Ed25519 ok/);
      // The server checks the statement a bundle carries against its own log's receipt keys (V5).
      const bundle = JSON.parse(r.out);
      const verify = async (b: unknown) =>
        (
          await fetch(`${s.url}/api/v1/verify`, {
            method: 'POST',
            body: JSON.stringify(b),
            headers: { 'content-type': 'application/json' },
          })
        ).json();
      const good = await verify(bundle);
      expect(good.verdict.overallOk).toBe(true);
      expect(good.verdict.scitt).toMatchObject({ checked: true, ok: true });
      const damaged = fromBase64Url(bundle.scitt)!;
      damaged[damaged.length - 20]! ^= 1;
      const refused = await verify({ ...bundle, scitt: toBase64Url(damaged) });
      expect(refused.verdict.overallOk).toBe(false);
      expect(refused.verdict.scitt).toMatchObject({ checked: true, ok: false });
      const bytes = new Uint8Array(readFileSync(file));
      // Registering the Transparent Statement again is the same entry (receipts are not part of it).
      const post = await fetch(`${s.url}/entries`, {
        method: 'POST',
        body: bytes as BodyInit,
        headers: { 'content-type': 'application/cose' },
      });
      expect(post.status).toBe(201);
      const json = JSON.parse((await runSvc(['verify', file, '--keys-url', s.url, '--json'])).out);
      expect(post.headers.get('location')).toBe(`/entries/${json.statement.leaf}`);
      const bad = bytes.slice();
      bad[bad.length - 10]! ^= 1;
      expect((await runSvc(['verify', writeTo('bad.cose', bad), '--keys-url', s.url])).code).toBe(1);
      expect((await runSvc(['verify', file])).code).toBe(2);
    } finally {
      await s.stop();
    }
  });

  it("svc verify of a bundle checks every layer the server checks, with the server's keys, and names each (#44 rows 1, 2)", async () => {
    const s = await boot();
    try {
      const r = await runSvc([
        'issue',
        '--answer',
        'Layered.',
        '--scitt',
        join(dir, 'layered.cose'),
        '--envelopes',
        'jws,cose',
        '--data-dir',
        s.dir,
      ]);
      expect(r.code, r.err).toBe(0);
      const bundle = JSON.parse(r.out);
      const server = async (b: unknown) =>
        (
          await fetch(`${s.url}/api/v1/verify`, {
            method: 'POST',
            body: JSON.stringify(b),
            headers: { 'content-type': 'application/json' },
          })
        ).json();
      const cli = (b: unknown, ...flags: string[]) =>
        runSvc(['verify', writeTo(`b${Math.random()}.json`, utf8(JSON.stringify(b))), '--keys-url', s.url, ...flags]);
      // A good bundle: the same verdict, and the text names the SCITT layer and the envelopes.
      const good = await cli(bundle);
      expect(good.code, good.err + good.out).toBe(0);
      expect(good.out).toMatch(/SCITT statement: ok/);
      expect(good.out).toMatch(/envelopes: ok/);
      expect((await server(bundle)).verdict.overallOk).toBe(true);
      // One bit of the scitt member: the server fails it; so must the CLI (it printed PASS before).
      const damaged = fromBase64Url(bundle.scitt)!;
      damaged[damaged.length - 20]! ^= 1;
      const bad = { ...bundle, scitt: toBase64Url(damaged) };
      expect((await server(bad)).verdict.overallOk).toBe(false);
      const badCli = await cli(bad);
      expect(badCli.code).toBe(1);
      expect(badCli.out).toMatch(/Integrity: FAIL/);
      expect(badCli.out).toMatch(/SCITT statement: FAILED/);
      const json = JSON.parse((await cli(bad, '--json')).out);
      expect(json.verdict.scitt).toEqual((await server(bad)).verdict.scitt);
      // A tampered Ed25519 JWS signature: the line that failed is named, not only "FAIL".
      const jws = structuredClone(bundle);
      const sig = jws.receipt.envelopes.jws.signatures[1];
      sig.signature = `${sig.signature.startsWith('A') ? 'B' : 'A'}${sig.signature.slice(1)}`;
      const tampered = await cli(jws);
      expect(tampered.code).toBe(1);
      expect(tampered.out).toMatch(/envelopes: FAILED[\s\S]*JWS: ML-DSA-87 ok, Ed25519 FAILED/);
      expect((await server(jws)).verdict.overallOk).toBe(false);
    } finally {
      await s.stop();
    }
  });

  it('a usage error without the ledger: exit 2, nothing written', async () => {
    const r = await runSvc(['issue', '--answer', 'x', '--scitt', join(dir, 'none.cose'), '--data-dir', dir], {
      env: { SVC_LEDGER: 'off' },
    });
    expect(r.code).toBe(2);
    expect(r.err).toContain('--scitt needs the ledger');
  });
});
