// The ledger as a SCITT Transparency Service over HTTP (#34): register a Signed Statement, get its
// RFC 9942 receipt for the same head the C2SP checkpoint publishes, and read both with code we did
// not write (cbor2 decodes; OpenSSL through node:crypto verifies the Ed25519 receipt over the root
// the inclusion path rebuilds). Hostile registrations get SCRAPI's Concise Problem Details, never a 5xx.
import { createHash, createPublicKey, verify } from 'node:crypto';
import { decode, encode } from 'cbor2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256, toHex, utf8 } from '@svc/core/primitives';
import { coseKey, mlDsa87Signer, readCoseKeySet } from '@svc/core/envelope';
import { signStatement, statementLeaf, verifyReceipt, verifyTransparentStatement, withReceipts } from '@svc/core/scitt';
import { testKeys } from '@svc/core/testing';
import { parseCheckpoint, parseNote } from '@svc/core/tlog';
import { Keyring } from '../../src/internal.js';
import { boot, type Booted } from '../support/harness.js';
import { scittCoseVector } from '../support/scitt-cose.js';

let s: Booted;
let base: string;
const PROBLEM = 'application/concise-problem-details+cbor';
const ED25519_SPKI = Buffer.from('302a300506032b6570032100', 'hex');

beforeAll(async () => {
  s = await boot({ ledgerBatchMs: 20 }, { SVC_RATE_VERIFY: '30' });
  base = s.url;
});
afterAll(() => s.stop());

const answerKey = () => Keyring.load(`${s.dir}/keys`).ring.get('answer');
function statement(answer: string, key = answerKey()): Uint8Array {
  const h = sha256(utf8(answer));
  return signStatement(
    {
      answerSha256: h,
      iss: 'svc',
      sub: `urn:svc:answer:${toHex(h)}`,
      iat: 1_767_225_600,
      typ: 'application/vnd.svc.answer-statement+cose',
    },
    mlDsa87Signer(key),
  );
}
async function post(body: Uint8Array, type = 'application/cose') {
  const r = await fetch(`${base}/entries`, {
    method: 'POST',
    body: body as BodyInit,
    headers: { 'content-type': type },
    redirect: 'manual',
  });
  return { status: r.status, headers: r.headers, body: new Uint8Array(await r.arrayBuffer()) };
}
async function get(path: string) {
  const r = await fetch(base + path, { redirect: 'manual' });
  return { status: r.status, headers: r.headers, body: new Uint8Array(await r.arrayBuffer()) };
}
async function expectProblem(r: { status: number; headers: Headers; body: Uint8Array }, status: number, title: string) {
  expect(r.status).toBe(status);
  expect(r.headers.get('content-type')).toBe(PROBLEM);
  const p = decode(r.body, { preferMap: true }) as Map<number, string>;
  expect(p.get(-1)).toBe(title);
  expect(typeof p.get(-2)).toBe('string');
}

describe('SCRAPI', () => {
  it('registers a statement: 201, the receipt, a Location; the receipt is for the published checkpoint', async () => {
    const st = statement('Paris is the capital of France.');
    const r = await post(st);
    expect(r.status).toBe(201);
    expect(r.headers.get('content-type')).toBe('application/cose');
    const id = toHex(statementLeaf(st));
    expect(r.headers.get('location')).toBe(`/entries/${id}`);
    const keys = readCoseKeySet((await get('/.well-known/scitt-keys')).body);
    const v = verifyReceipt(r.body, statementLeaf(st), { keys });
    expect(v).toMatchObject({ ok: true, alg: 'ML-DSA-44', vds: 1 });
    // One history: the receipt's root is the C2SP checkpoint's at that size.
    const cp = parseCheckpoint(parseNote(await (await fetch(`${base}/api/transparency/tlog/checkpoint`)).text()).text);
    expect(v.size).toBe(cp.size);
    expect(v.root).toBe(toHex(cp.root));
    expect(v.iss).toBe(cp.origin);
  });

  it('a repeat is the same entry and never grows the log; GET /entries/{id} gives both receipts', async () => {
    const st = statement('the same statement twice');
    const first = await post(st);
    const size = (await (await fetch(`${base}/api/transparency/ledger`)).json()).tree_size;
    const again = await post(st);
    expect(again.status).toBe(201);
    expect(again.headers.get('location')).toBe(first.headers.get('location'));
    expect((await (await fetch(`${base}/api/transparency/ledger`)).json()).tree_size).toBe(size);
    const ed = await get(`${first.headers.get('location')}?alg=EdDSA`);
    expect(ed.status).toBe(200);
    const pq = await get(first.headers.get('location')!);
    const keys = readCoseKeySet((await get('/.well-known/scitt-keys')).body);
    const t = withReceipts(st, [pq.body, ed.body]);
    const v = verifyTransparentStatement(t, { issuers: [coseKey('ML-DSA-87', answerKey().publicKey)], logs: [{ keys }] });
    expect(v.ok).toBe(true);
    expect(v.receipts.map((r) => r.alg)).toEqual(['ML-DSA-44', 'Ed25519']);
  });

  it('cbor2 and OpenSSL read the Ed25519 receipt: alg -8, vds 1, and its signature over the rebuilt root', async () => {
    const st = statement('read by others');
    const id = (await post(st)).headers.get('location')!;
    const receipt = (await get(`${id}?alg=EdDSA`)).body;
    const tagged = decode(receipt, { preferMap: true }) as { tag: number; contents: [Uint8Array, Map<number, unknown>, null, Uint8Array] };
    expect(tagged.tag).toBe(18);
    const [prot, unprot, payload, sig] = tagged.contents;
    const header = decode(prot, { preferMap: true }) as Map<number, unknown>;
    expect(header.get(1)).toBe(-8);
    expect(header.get(395)).toBe(1);
    expect(payload).toBeNull();
    const proof = decode((unprot.get(396) as Map<number, Uint8Array[]>).get(-1)![0]!) as [number, number, Uint8Array[]];
    // The root, rebuilt here from RFC 9162 s.2.1.3.2 with node's own SHA-256.
    const h = (...b: Uint8Array[]) => new Uint8Array(createHash('sha256').update(Buffer.concat(b)).digest());
    let [fn, sn] = [proof[1], proof[0] - 1];
    let r = h(new Uint8Array([0]), statementLeaf(st));
    for (const p of proof[2]) {
      if (fn % 2 === 1 || fn === sn) {
        r = h(new Uint8Array([1]), p, r);
        while (fn % 2 === 0 && fn !== 0) [fn, sn] = [fn >> 1, sn >> 1];
      } else r = h(new Uint8Array([1]), r, p);
      [fn, sn] = [fn >> 1, sn >> 1];
    }
    const keys = decode((await get('/.well-known/scitt-keys')).body, { preferMap: true }) as Map<number, unknown>[];
    const ed = keys.find((k) => k.get(1) === 1)!;
    const key = createPublicKey({ key: Buffer.concat([ED25519_SPKI, ed.get(-2) as Uint8Array]), format: 'der', type: 'spki' });
    expect(verify(null, encode(['Signature1', prot, new Uint8Array(0), r]), key, sig)).toBe(true);
    expect(verify(null, encode(['Signature1', prot, new Uint8Array(0), h(r)]), key, sig)).toBe(false);
  });

  it('the configuration and the keys: CBOR, each key by its base64url kid; an unknown kid is 404 No such key', async () => {
    const conf = decode((await get('/.well-known/transparency-configuration')).body, { preferMap: true }) as Map<string, unknown>;
    expect(conf.get('scitt_keys_uri')).toBe('/.well-known/scitt-keys');
    expect(conf.get('receipt_algorithms')).toEqual([-48, -8]);
    const set = decode((await get('/.well-known/scitt-keys')).body, { preferMap: true }) as Map<number, unknown>[];
    expect(set.length).toBeGreaterThanOrEqual(2);
    for (const k of set) {
      const kid = Buffer.from(k.get(2) as Uint8Array).toString('base64url');
      const one = await get(`/.well-known/scitt-keys/${kid}`);
      expect(one.status).toBe(200);
      expect(Buffer.from(one.body).equals(Buffer.from(encode(k)))).toBe(true);
    }
    await expectProblem(await get('/.well-known/scitt-keys/nope'), 404, 'No such key');
  });
});

describe('SCRAPI under hostile input: the documented problem, never a 5xx', () => {
  it('registration policy: another issuer is Rejected, an unknown alg a Bad Signature Algorithm, a detached payload Payload Missing', async () => {
    await expectProblem(await post(statement('by a stranger', testKeys('stranger').answer)), 400, 'Rejected');
    // The scitt-cose ES256 statement: well formed, its issuer outside this service's policy.
    await expectProblem(await post(scittCoseVector('valid-es256').statement), 400, 'Rejected');
    const st = decode(statement('x'), { preferMap: true }) as { contents: unknown[] };
    const [prot, , payload, sig] = st.contents as [Uint8Array, Map<number, unknown>, Uint8Array, Uint8Array];
    const header = decode(prot, { preferMap: true }) as Map<number, unknown>;
    header.set(1, -65535);
    const tag = (a: unknown[]) => new Uint8Array([0xd2, ...encode(a)]);
    await expectProblem(await post(tag([encode(header), new Map(), payload, sig])), 400, 'Bad Signature Algorithm');
    await expectProblem(await post(tag([prot, new Map(), null, sig])), 400, 'Payload Missing');
  });

  it('malformed, wrong type, too large, deep, truncated', async () => {
    await expectProblem(await post(utf8('{"not":"cose"}')), 400, 'Malformed request');
    await expectProblem(await post(statement('y'), 'application/json'), 400, 'Malformed request');
    await expectProblem(await post(new Uint8Array(65 * 1024)), 413, 'Payload too large');
    await expectProblem(await post(new Uint8Array(3 * 1024 * 1024)), 413, 'Too large');
    await expectProblem(await post(new Uint8Array(60_000).fill(0x81)), 400, 'Malformed request');
    const st = statement('truncated');
    for (const n of [0, 1, 10, st.length - 1]) await expectProblem(await post(st.subarray(0, n)), 400, 'Malformed request');
    await expectProblem(await get('/entries/not-an-id'), 400, 'Invalid locator');
    await expectProblem(await get(`/entries/${'0'.repeat(64)}`), 404, 'Not found');
    await expectProblem(await get(`/entries/${'0'.repeat(64)}?alg=ES256`), 400, 'Malformed request');
  });

  it('a flood of registrations is rate limited like every POST, in problem form', async () => {
    const bad = utf8('junk');
    const statuses: number[] = [];
    for (let i = 0; i < 35; i++) {
      const r = await post(bad);
      statuses.push(r.status);
      if (r.status === 429) await expectProblem(r, 429, 'Rate limited');
    }
    expect(statuses).toContain(429);
    expect(statuses.every((x) => x < 500)).toBe(true);
  });
});

describe('SCRAPI registration against a slow client', () => {
  it('a statement upload that stalls is ended at the body deadline: 408 and the connection closed, and the server answers on', async () => {
    const { connect } = await import('node:net');
    // Keys of its own: the statement below is by an issuer outside this server's policy.
    const slow = await boot({ bodyMs: 800 }, {}, undefined, { freshKeys: true });
    try {
      const port = Number(new URL(slow.url).port);
      const st = statement('slow');
      const answer = await new Promise<string>((resolve) => {
        const sock = connect(port, '127.0.0.1', () => {
          sock.write(`POST /entries HTTP/1.1\r\nHost: x\r\nContent-Type: application/cose\r\nContent-Length: ${st.length}\r\n\r\n`);
          // Half the statement, a byte at a time, then nothing.
          let i = 0;
          const drip = setInterval(() => {
            if (i >= st.length / 2 || sock.destroyed) return clearInterval(drip);
            sock.write(st.subarray(i, ++i));
          }, 20);
        });
        let text = '';
        sock.on('data', (c) => (text += c.toString('latin1')));
        sock.on('error', () => undefined);
        sock.on('close', () => resolve(text));
      });
      // The request deadline is the HTTP server's own, the same on every route: 408 and the
      // connection closed, with no body (the client sending at this pace is not reading one).
      expect(answer).toMatch(/^HTTP\/1\.1 408 [^\r]*\r\nConnection: close\r\n\r\n$/);
      // The server goes on answering: a statement by an issuer outside this server's policy is refused as usual.
      const r = await fetch(`${slow.url}/entries`, {
        method: 'POST',
        headers: { 'content-type': 'application/cose' },
        body: Buffer.from(st),
      });
      await expectProblem({ status: r.status, headers: r.headers, body: new Uint8Array(await r.arrayBuffer()) }, 400, 'Rejected');
      expect((await fetch(`${slow.url}/.well-known/transparency-configuration`)).status).toBe(200);
    } finally {
      await slow.stop();
    }
  }, 30_000);
});
