// Our own statements and receipts: made with the answer key and the log's note keys, checked by the
// same verifier the scitt-cose vectors pass, and failing for every change an attacker could make.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sha256, toHex, utf8 } from '@svc/core/primitives';
import { coseKey, cborEncode, mlDsa87Signer, readCose1 } from '@svc/core/envelope';
import {
  logKeySigner,
  makeReceipt,
  receiptMaker,
  receiptsOf,
  signStatement,
  statementLeaf,
  verifyReceipt,
  verifyStatement,
  verifyTransparentStatement,
  withReceipts,
} from '@svc/core/scitt';
import { testKeys } from '@svc/core/testing';
import { logKeygen } from '@svc/core/tlog';
import { MemoryTree, inclusionProof, treeRoot } from '../../src/merkle/index.js';

const K = testKeys('scitt');
const seed = (s: string) => sha256(utf8(s));
const log44 = logKeygen('subtree/v1', seed('log44'));
const logEd = logKeygen('ed25519', seed('logEd'));
const issuers = [coseKey('ML-DSA-87', K.answer.publicKey)];
const logKeys = [coseKey('ML-DSA-44', log44.publicKey), coseKey('Ed25519', logEd.publicKey)];
const ORIGIN = 'svc-ledger.invalid/0011223344556677';

function statement(answer = 'the answer', iat = 1_767_225_600): Uint8Array {
  return signStatement(
    {
      answerSha256: sha256(utf8(answer)),
      iss: 'svc',
      sub: `urn:svc:answer:${toHex(sha256(utf8(answer)))}`,
      iat,
      typ: 'application/vnd.svc.answer-statement+cose',
    },
    mlDsa87Signer(K.answer),
  );
}
const S = statement();

/** A log of `size` leaves holding the statement at `index`, and its two receipts. */
function registered(size: number, index: number, st = S) {
  const tree = new MemoryTree();
  for (let i = 0; i < size; i++) tree.appendData(i === index ? statementLeaf(st) : seed(`filler ${i}`));
  const root = treeRoot(tree, size);
  const content = { index, size, path: inclusionProof(tree, index, size), root, iss: ORIGIN };
  const receipts = [makeReceipt(content, logKeySigner(log44)), makeReceipt(content, logKeySigner(logEd))];
  return { root, receipts, transparent: withReceipts(st, receipts) };
}

describe('our Signed Statements and receipts', () => {
  it('a statement says what it is about and carries no content: a hash envelope of the answer', () => {
    const v = verifyStatement(S, issuers);
    expect(v).toMatchObject({ ok: true, alg: 'ML-DSA-87', iss: 'svc', payloadHashAlg: -16, contentType: 'text/plain; charset=utf-8' });
    expect(toHex(v.payload!)).toBe(toHex(sha256(utf8('the answer'))));
    expect(v.leaf).toBe(toHex(sha256(S)));
  });

  it('the transparent statement verifies, with both receipts; receipts do not change the leaf', () => {
    const { root, receipts, transparent } = registered(8, 2);
    expect(statementLeaf(transparent)).toEqual(statementLeaf(S));
    expect(receiptsOf(transparent)).toEqual(receipts);
    expect(receiptsOf(S)).toEqual([]);
    const v = verifyTransparentStatement(transparent, { issuers, logs: [{ keys: logKeys, checkpoint: { size: 8, root } }] });
    expect(v.ok).toBe(true);
    expect(v.receipts.map((r) => [r.alg, r.iss, r.index, r.size, r.root])).toEqual([
      ['ML-DSA-44', ORIGIN, 2, 8, toHex(root)],
      ['Ed25519', ORIGIN, 2, 8, toHex(root)],
    ]);
  });

  it('property: any tree, any position; no single-byte change of the transparent statement passes unseen', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 40 }).chain((n) => fc.tuple(fc.constant(n), fc.nat(n - 1))),
        fc.nat(),
        fc.integer({ min: 1, max: 255 }),
        ([size, index], at, flip) => {
          const { root, transparent } = registered(size, index);
          const logs = [{ keys: logKeys, checkpoint: { size, root } }];
          expect(verifyTransparentStatement(transparent, { issuers, logs }).ok).toBe(true);
          const bad = transparent.slice();
          bad[at % bad.length]! ^= flip;
          const v = verifyTransparentStatement(bad, { issuers, logs });
          // Nothing passes silently: the whole fails, or the damaged receipt names a key no trusted
          // log holds (a changed kid or alg reads as another log's receipt), is reported unverified
          // and set aside, and the intact one carries the verdict.
          if (v.ok) {
            expect(v.receipts.map((r) => r.error ?? 'ok').sort()).toEqual(['ok', 'unknown_key']);
            expect(statementLeaf(bad)).toEqual(statementLeaf(S));
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it("a forked log's receipt fails against the witnessed checkpoint; a receipt alone still says what it proves", () => {
    const honest = registered(8, 2);
    // The same statement at the same size in another history (one filler differs).
    const tree = new MemoryTree();
    for (let i = 0; i < 8; i++) tree.appendData(i === 2 ? statementLeaf(S) : seed(i === 5 ? 'forked' : `filler ${i}`));
    const forkRoot = treeRoot(tree, 8);
    const forked = makeReceipt({ index: 2, size: 8, path: inclusionProof(tree, 2, 8), root: forkRoot, iss: ORIGIN }, logKeySigner(log44));
    const leaf = statementLeaf(S);
    expect(verifyReceipt(forked, leaf, { keys: logKeys }).ok).toBe(true);
    const r = verifyReceipt(forked, leaf, { keys: logKeys, checkpoint: { size: 8, root: honest.root } });
    expect(r.error).toBe('checkpoint_mismatch');
    expect(verifyReceipt(honest.receipts[0], leaf, { keys: logKeys, checkpoint: { size: 9, root: honest.root } }).error).toBe(
      'checkpoint_mismatch',
    );
  });

  it('the Ed25519 receipt is alg -8 (EdDSA) as SCITT verifiers read it; ML-DSA-44 is -48; the statement -50', () => {
    const { receipts } = registered(3, 0);
    const alg = (b: Uint8Array) => readCose1(b).header.get(1);
    expect(receipts.map(alg)).toEqual([-48, -8]);
    expect(alg(S)).toBe(-50);
    expect(readCose1(receipts[0]!).header.get(395)).toBe(1);
    expect(readCose1(receipts[0]!).payload).toBeNull();
  });

  it('a receipt of another statement, or under the issuer key, or with no receipt at all: never ok', () => {
    const other = statement('another answer');
    const { receipts } = registered(4, 1, other);
    const mixed = withReceipts(S, receipts);
    expect(verifyTransparentStatement(mixed, { issuers, logs: [{ keys: logKeys }] }).error).toBe('root_not_signed');
    expect(verifyTransparentStatement(S, { issuers, logs: [{ keys: logKeys }] }).error).toBe('no_receipt');
    const { transparent } = registered(4, 1);
    expect(verifyTransparentStatement(transparent, { issuers, logs: [{ keys: issuers }] }).error).toBe('no_receipt');
    expect(verifyTransparentStatement(transparent, { issuers: logKeys, logs: [{ keys: logKeys }] }).error).toBe('unknown_key');
  });
});

describe('hostile statements and receipts: a typed code, never a throw', () => {
  const leaf = statementLeaf(S);
  const { receipts } = registered(8, 3);
  const tag = (a: unknown[]) => new Uint8Array([0xd2, ...cborEncode(a)]);
  const header = (m: Map<number, unknown>) => cborEncode(m);
  const cases: [string, unknown, string][] = [
    // Text is a caller's mistake, refused with a typed error (test/envelope/forms.test.ts).
    ['not bytes', 42, 'malformed'],
    ['empty', new Uint8Array(0), 'malformed'],
    ['2 MiB and one byte', new Uint8Array(2 * 1024 * 1024 + 1), 'too_large'],
    ['not CBOR', utf8('{"json": true}'), 'malformed'],
    ['untagged', cborEncode([new Uint8Array(0), new Map(), new Uint8Array(1), new Uint8Array(1)]), 'malformed'],
    ['2 MiB of nesting', new Uint8Array(2 * 1024 * 1024).fill(0x81), 'malformed'],
    ['nested 1000 deep', new Uint8Array(1000).fill(0x81), 'malformed'],
    ['a protected header that is not a map', tag([cborEncode([1]), new Map(), new Uint8Array(1), new Uint8Array(1)]), 'malformed'],
    ['an unknown algorithm', tag([header(new Map([[1, -65535]])), new Map(), new Uint8Array(1), new Uint8Array(1)]), 'unsupported_alg'],
    ['alg as text', tag([header(new Map([[1, 'none']])), new Map(), new Uint8Array(1), new Uint8Array(1)]), 'unsupported_alg'],
    [
      'a crit it does not know',
      tag([
        header(
          new Map<number, unknown>([
            [1, -50],
            [2, [999]],
          ]),
        ),
        new Map(),
        new Uint8Array(1),
        new Uint8Array(1),
      ]),
      'crit',
    ],
    ['a detached payload', tag([header(new Map([[1, -50]])), new Map(), null, new Uint8Array(1)]), 'payload_missing'],
    [
      'claims that are not a map',
      tag([
        header(
          new Map<number, unknown>([
            [1, -50],
            [15, 'x'],
          ]),
        ),
        new Map(),
        new Uint8Array(1),
        new Uint8Array(1),
      ]),
      'malformed',
    ],
  ];
  it.each(cases)('statement: %s', (_n, bytes, code) => {
    expect(verifyStatement(bytes, issuers).error).toBe(code);
    const t = verifyTransparentStatement(bytes, { issuers, logs: [{ keys: logKeys }] });
    expect(t.ok).toBe(false);
  });

  const rh = (m: [number, unknown][]) => header(new Map<number, unknown>(m));
  const proofs = (p: unknown[]) => new Map<number, unknown>([[396, new Map<number, unknown>([[-1, p]])]]);
  const good = cborEncode([8, 3, Array.from({ length: 3 }, () => new Uint8Array(32))]);
  const receiptCases: [string, unknown, string][] = [
    ['no vds', tag([rh([[1, -48]]), proofs([good]), null, new Uint8Array(2420)]), 'unsupported_vds'],
    [
      'vds 3',
      tag([
        rh([
          [1, -48],
          [395, 3],
        ]),
        proofs([good]),
        null,
        new Uint8Array(2420),
      ]),
      'unsupported_vds',
    ],
    [
      'an attached payload',
      tag([
        rh([
          [1, -48],
          [395, 1],
        ]),
        proofs([good]),
        new Uint8Array(32),
        new Uint8Array(2420),
      ]),
      'malformed',
    ],
    [
      'no proofs',
      tag([
        rh([
          [1, -48],
          [395, 1],
        ]),
        new Map(),
        null,
        new Uint8Array(2420),
      ]),
      'malformed_proof',
    ],
    [
      'nine proofs',
      tag([
        rh([
          [1, -48],
          [395, 1],
        ]),
        proofs(Array(9).fill(good)),
        null,
        new Uint8Array(2420),
      ]),
      'malformed_proof',
    ],
    [
      'a proof that is not CBOR',
      tag([
        rh([
          [1, -48],
          [395, 1],
        ]),
        proofs([new Uint8Array([0xff])]),
        null,
        new Uint8Array(2420),
      ]),
      'malformed_proof',
    ],
    [
      'a path of 65',
      tag([
        rh([
          [1, -48],
          [395, 1],
        ]),
        proofs([cborEncode([8, 3, Array(65).fill(new Uint8Array(32))])]),
        null,
        new Uint8Array(2420),
      ]),
      'malformed_proof',
    ],
    [
      'index past size',
      tag([
        rh([
          [1, -48],
          [395, 1],
        ]),
        proofs([cborEncode([8, 9, []])]),
        null,
        new Uint8Array(2420),
      ]),
      'malformed_proof',
    ],
    [
      'a size of 2^53',
      tag([
        rh([
          [1, -48],
          [395, 1],
        ]),
        proofs([cborEncode([2 ** 53, 0, []])]),
        null,
        new Uint8Array(2420),
      ]),
      'malformed_proof',
    ],
    [
      'a short hash in the path',
      tag([
        rh([
          [1, -48],
          [395, 1],
        ]),
        proofs([cborEncode([8, 3, [new Uint8Array(31)]])]),
        null,
        new Uint8Array(2420),
      ]),
      'malformed_proof',
    ],
    [
      'a proof that fits but is not signed',
      tag([
        rh([
          [1, -48],
          [395, 1],
        ]),
        proofs([good]),
        null,
        new Uint8Array(2420),
      ]),
      'root_not_signed',
    ],
    [
      'a crit it does not know',
      tag([
        rh([
          [1, -48],
          [2, [396]],
          [395, 1],
        ]),
        proofs([good]),
        null,
        new Uint8Array(2420),
      ]),
      'crit',
    ],
  ];
  it.each(receiptCases)('receipt: %s', (_n, bytes, code) => {
    expect(verifyReceipt(bytes, leaf, { keys: logKeys }).error).toBe(code);
  });

  it('a receipt meets a truncation at every length with a code', () => {
    const r = receipts[1]!;
    for (let n = 0; n < r.length; n++) expect(verifyReceipt(r.subarray(0, n), leaf, { keys: logKeys }).ok).toBe(false);
  });
});

describe('receiptMaker', () => {
  it('property: each receipt is byte for byte makeReceipt, signing once per root', () => {
    const tree = new MemoryTree();
    for (let i = 0; i < 40; i++) tree.appendData(seed(`m${i}`));
    let signs = 0;
    const base = logKeySigner(logEd);
    const counted = { ...base, sign: (m: Uint8Array) => (signs++, base.sign(m)) };
    const make = receiptMaker(counted, ORIGIN);
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 40 }), fc.nat(), (size, i) => {
        const index = i % size;
        const content = { index, size, path: inclusionProof(tree, index, size), root: treeRoot(tree, size) };
        expect(toHex(make(content))).toBe(toHex(makeReceipt({ ...content, iss: ORIGIN }, base)));
      }),
      { numRuns: 120 },
    );
    // Entries under one root share its signature: one signing for any number of receipts.
    signs = 0;
    const once = receiptMaker(counted, ORIGIN);
    const root = treeRoot(tree, 40);
    for (const index of [3, 4, 39]) once({ index, size: 40, path: inclusionProof(tree, index, 40), root });
    expect(signs).toBe(1);
    once({ index: 3, size: 39, path: inclusionProof(tree, 3, 39), root: treeRoot(tree, 39) });
    expect(signs).toBe(2);
  });
});
