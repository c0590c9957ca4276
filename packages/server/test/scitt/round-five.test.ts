// Round five (#41) against a running server: SCITT registration takes only Signed Statements, one
// entry per statement whatever is unsigned, a listed issuer never speaks for the service, a JWK Set
// with kids works, and a bundle or record carrying another log's receipts is judged the same here
// as where it was made. Every case failed on the server before the round.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { p256 } from '@noble/curves/nist.js';
import { encode as cbor2Encode, Tag } from 'cbor2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromHex, sha256, toBase64Url, toHex, utf8 } from '@svc/core/primitives';
import { issueProof } from '@svc/core/issue';
import { cborEncode, ed25519Signer, envelopeMaker, mlDsa87Signer, publicJwk, readCose1, signCose1, sigStructure } from '@svc/core/envelope';
import { signStatement, withReceipts } from '@svc/core/scitt';
import { Keyring } from '../../src/internal.js';
import { boot, call, type Booted } from '../support/harness.js';

let a: Booted;
let b: Booted;
const listed = ed25519Signer(sha256(utf8('round five listed issuer')));
// Listed without a kid: tried for any header kid, as the old policy tried every key.
const listedNoKid = ed25519Signer(sha256(utf8('round five listed issuer, no kid')));
const esKey = sha256(utf8('round five es256 issuer'));
const esPub = p256.getPublicKey(esKey, false);

beforeAll(async () => {
  a = await boot({ ledgerBatchMs: 20 });
  // The operator lists issuers as a JWK Set with kids (RFC 7638 thumbprints), as most tools write it.
  const issuers = join(a.dir, 'issuers.json');
  const es = { kty: 'EC', crv: 'P-256', x: toBase64Url(esPub.subarray(1, 33)), y: toBase64Url(esPub.subarray(33)), kid: 'es-1' };
  const { kid: _kid, ...noKid } = publicJwk('Ed25519', listedNoKid.publicKey);
  writeFileSync(issuers, JSON.stringify({ keys: [publicJwk('Ed25519', listed.publicKey), noKid, es] }));
  // Another log: keys of its own, not the copy of the run's keyring `a` has.
  b = await boot({ ledgerBatchMs: 20 }, { SVC_SCITT_ISSUERS: issuers }, undefined, { freshKeys: true });
}, 120_000);
afterAll(async () => {
  await b?.stop();
  await a?.stop();
});

/** A COSE_Sign1 (tag 18) of the four parts given, encoded by cbor2: code this project did not write. */
const sign1Bytes = (_tag: 18, parts: unknown[]): Uint8Array => new Uint8Array(cbor2Encode(new Tag(18, parts)));
const answerKey = (s: Booted) => Keyring.load(`${s.dir}/keys`).ring.get('answer');
const H = sha256(utf8('round five'));
const ours = (s: Booted, answer = 'round five') => {
  const h = sha256(utf8(answer));
  return signStatement(
    { answerSha256: h, iss: 'svc', sub: `urn:svc:answer:${toHex(h)}`, iat: 1, typ: 'application/vnd.svc.answer-statement+cose' },
    mlDsa87Signer(answerKey(s)),
  );
};
const theirs = (over: Record<string, unknown> = {}, by = listed) =>
  signStatement(
    { answerSha256: H, iss: 'https://issuer.example', sub: 'pkg:npm/x@1', iat: 1, typ: 'application/example+cose', ...over },
    by,
  );
async function register(s: Booted, body: Uint8Array) {
  const r = await fetch(`${s.url}/entries`, { method: 'POST', body: body as BodyInit, headers: { 'content-type': 'application/cose' } });
  return { status: r.status, body: new Uint8Array(await r.arrayBuffer()) };
}
const treeSize = async (s: Booted) => (await (await fetch(`${s.url}/api/transparency/ledger`)).json()).tree_size as number;

describe('registration under the policy', () => {
  it("row 9: a listed issuer's statement (header kid: RFC 9679 thumbprint; the set's kid: RFC 7638) registers", async () => {
    expect((await register(b, theirs())).status).toBe(201);
  });

  it('row 1: an answer-receipt COSE envelope signed by the answer key is no statement: 400, nothing appended', async () => {
    const before = await treeSize(b);
    const envelope = signCose1(utf8('{"answer_sha256":"00"}'), mlDsa87Signer(answerKey(b)), 'application/vnd.svc.answer-receipt+json', {
      iss: 'svc',
      iat: 1,
    });
    expect((await register(b, envelope)).status).toBe(400);
    expect(await treeSize(b)).toBe(before);
  });

  it('row 2: a registered statement re-posted with unsigned members is refused; the log does not grow', async () => {
    const st = theirs({ sub: 'pkg:npm/row2@1' });
    expect((await register(b, st)).status).toBe(201);
    const size = await treeSize(b);
    const c = readCose1(st);
    for (const [label, value] of [
      [1, 'x'],
      [99, new Uint8Array([1])],
      ['note', 'anything'],
      [-70000, null],
    ] as const) {
      const changed = sign1Bytes(18, [c.protectedBytes, new Map<unknown, unknown>([[label, value]]), c.payload, c.signature]);
      expect((await register(b, changed)).status).toBe(400);
    }
    // Receipts (394) are the one unsigned member: the same entry, not a new one.
    const again = await register(b, withReceipts(st, [new Uint8Array([0xd2, 0x80])]));
    expect(again.status).toBe(201);
    expect(await treeSize(b)).toBe(size);
  });

  it("row 3: a listed key claiming the service's iss, answer subject or statement typ is Rejected", async () => {
    expect((await register(b, theirs({ sub: 'pkg:npm/no-kid@1' }, listedNoKid))).status).toBe(201);
    for (const by of [listed, listedNoKid])
      for (const over of [{ iss: 'svc' }, { sub: `urn:svc:answer:${toHex(H)}` }, { typ: 'application/vnd.svc.answer-statement+cose' }])
        expect((await register(b, theirs(over, by))).status).toBe(400);
    // The service's own statement still registers.
    expect((await register(b, ours(b))).status).toBe(201);
  });

  it('row 3: an ES256 statement registers in low-S form only; (r, n - s) is refused, one entry', async () => {
    const header = cborEncode(
      new Map<number, unknown>([
        [1, -7],
        [
          15,
          new Map<number, unknown>([
            [1, 'https://es.example'],
            [2, 'urn:es:1'],
          ]),
        ],
      ]),
    );
    const low = p256.sign(sigStructure(header, H), esKey, { lowS: true });
    const s = BigInt(`0x${toHex(low.subarray(32))}`);
    const high = new Uint8Array([...low.subarray(0, 32), ...fromHex((p256.Point.CURVE().n - s).toString(16).padStart(64, '0'), 32)!]);
    const sign1 = (sig: Uint8Array) => sign1Bytes(18, [header, new Map(), H, sig]);
    expect((await register(b, sign1(low))).status).toBe(201);
    const size = await treeSize(b);
    expect((await register(b, sign1(high))).status).toBe(400);
    expect(await treeSize(b)).toBe(size);
  });
});

describe('row 8: envelope signatures by keys the server never pinned', () => {
  it("the server's own Ed25519 envelope key is keyRecognized; a stranger's, named by the bundle, is not", async () => {
    const ring = Keyring.load(`${a.dir}/keys`).ring;
    const seed = ring.envelopeSeed();
    expect(seed).toBeInstanceOf(Uint8Array);
    const input = { answer: 'enveloped', model: 'm', ts: 1_767_225_600 };
    const own = issueProof(input, { receipt: ring.get('answer'), envelopes: envelopeMaker({ formats: ['jws', 'cose'], ed25519: seed! }) });
    const stranger = issueProof(input, {
      receipt: ring.get('answer'),
      envelopes: envelopeMaker({ formats: ['jws', 'cose'], ed25519: sha256(utf8('a stranger')) }),
    });
    const eds = (r: { body: any }) =>
      [...r.body.verdict.receipt.envelopes.jws.signatures, ...r.body.verdict.receipt.envelopes.cose.flatMap((c: any) => c.signatures)]
        .filter((x: { alg: string }) => x.alg === 'Ed25519')
        .map((x: { ok: boolean; keyRecognized: boolean }) => [x.ok, x.keyRecognized]);
    const ours = await call(a.url, '/api/v1/verify', { json: own });
    expect(ours.body.verdict.signerRecognized).toBe(true);
    expect(eds(ours)).toEqual([
      [true, true],
      [true, true],
    ]);
    const theirs = await call(a.url, '/api/v1/verify', { json: stranger });
    expect(eds(theirs)).toEqual([
      [true, false],
      [true, false],
    ]);
  });
});

describe("rows 4 and 5: another log's receipts", () => {
  /** A bundle by server a's answer key whose SCITT statement is registered in server a's log. */
  async function bundleFromA() {
    const answer = 'registered in a';
    const st = ours(a, answer);
    const r = await register(a, st);
    expect(r.status).toBe(201);
    const bundle = issueProof({ answer, model: 'm', ts: 1_767_225_600 }, { receipt: answerKey(a) });
    return { ...bundle, scitt: toBase64Url(withReceipts(st, [r.body])) };
  }

  it('row 5: a genuine receipt of another log is set aside on the server, as the library does, never root_not_signed', async () => {
    const bundle = await bundleFromA();
    const here = await call(a.url, '/api/v1/verify', { json: bundle });
    expect(here.body.verdict.scitt).toMatchObject({ checked: true, ok: true, logRecognized: true });
    const there = await call(b.url, '/api/v1/verify', { json: bundle });
    expect(there.status).toBe(200);
    expect(there.body.verdict.scitt).toMatchObject({ checked: true, ok: true, logRecognized: false });
    expect(there.body.verdict.scitt.receipts[0].error).toBe('unknown_key');
    expect(there.body.verdict.overallOk).toBe(true);
  });

  it('row 4: a record made where the log is known verifies unchanged where it is not (E4, E5)', async () => {
    const bundle = await bundleFromA();
    const made = await call(a.url, '/api/v1/evidence', { json: bundle });
    expect(made.status).toBe(200);
    const back = await call(a.url, '/api/v1/verify', { json: made.body });
    expect(back.status).toBe(200);
    const elsewhere = await call(b.url, '/api/v1/verify', { json: made.body });
    expect(elsewhere.status).toBe(200);
    expect(elsewhere.body.verdict.overallOk).toBe(true);
  });

  it("a receipt of this very log that was damaged still fails here: setting aside is only for other logs' keys", async () => {
    const bundle = await bundleFromA();
    const bytes = Uint8Array.from(atob(bundle.scitt.replaceAll('-', '+').replaceAll('_', '/')), (c) => c.charCodeAt(0));
    const c = readCose1(bytes);
    const receipt = (c.unprotected.get(394) as Uint8Array[])[0]!.slice();
    receipt[receipt.length - 5]! ^= 1;
    const damaged = toBase64Url(withReceipts(sign1Bytes(18, [c.protectedBytes, new Map(), c.payload, c.signature]), [receipt]));
    const r = await call(a.url, '/api/v1/verify', { json: { ...bundle, scitt: damaged } });
    expect(r.body.verdict.overallOk).toBe(false);
    expect(r.body.verdict.scitt.receipts[0].error).toBe('root_not_signed');
  });
});
