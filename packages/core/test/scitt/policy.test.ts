// Round five (#41) on SCITT: what a registration takes, what a key may claim, and what an unsigned
// part can change. Each case failed on the code before the round: a receipt envelope registered
// as a statement, unsigned members made new entries, a listed key spoke for the service, a high-S
// ES256 signature was a second entry, a JWK with its kid never matched, and a receipt's unsigned
// index and size read as verified.
import { p256 } from '@noble/curves/nist.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fromBase64Url, fromHex, sha256, toHex, utf8 } from '@svc/core/primitives';
import { cborEncode, coseKey, ed25519Signer, mlDsa87Signer, publicJwk, readCose1, signCose1, sigStructure } from '@svc/core/envelope';
import { Tagged } from '../../src/envelope/cbor.js';
import {
  checkRegistration,
  ecdsaLowS,
  logKeySigner,
  makeReceipt,
  signStatement,
  statementLeaf,
  verifyReceipt,
  verifyStatement,
  verifyTransparentStatement,
  withReceipts,
  type RegistrationPolicy,
} from '@svc/core/scitt';
import { testKeys } from '@svc/core/testing';
import { logKeygen } from '@svc/core/tlog';
import { MemoryTree, inclusionProof, treeRoot } from '../../src/merkle/index.js';
import { candidateKeys } from '../../src/scitt/statement.js';
import { rfc9964 } from '../vectors-fs.js';

const K = testKeys('scitt-policy');
const seed = (s: string) => sha256(utf8(s));
const listed = ed25519Signer(seed('a listed issuer'));
const stranger = ed25519Signer(seed('nobody listed'));
const RESERVED = { iss: 'svc', subPrefix: 'urn:svc:answer:', typ: 'application/vnd.svc.answer-statement+cose' };
const policy: RegistrationPolicy = {
  service: [coseKey('ML-DSA-87', K.answer.publicKey)],
  listed: [publicJwk('Ed25519', listed.publicKey)],
  reserved: RESERVED,
};
const h = seed('the answer');
const ours = (over: Partial<Parameters<typeof signStatement>[0]> = {}, by = mlDsa87Signer(K.answer)) =>
  signStatement({ answerSha256: h, iss: 'svc', sub: `urn:svc:answer:${toHex(h)}`, iat: 1_767_225_600, typ: RESERVED.typ, ...over }, by);
const theirs = (over: Partial<Parameters<typeof signStatement>[0]> = {}, by = listed) =>
  signStatement(
    { answerSha256: h, iss: 'https://issuer.example', sub: 'pkg:npm/x@1', iat: 1, typ: 'application/example+cose', ...over },
    by,
  );

/** The same COSE_Sign1 with another unprotected header: what anyone can do to a signed statement. */
function withUnprotected(bytes: Uint8Array, unprotected: Map<unknown, unknown>): Uint8Array {
  const c = readCose1(bytes);
  return cborEncode(new Tagged(18, [c.protectedBytes, unprotected, c.payload, c.signature]));
}

describe('row 1: only Signed Statements register', () => {
  it('an answer-receipt COSE envelope (typ +json, no sub) is not a statement, in the verifier and at registration', () => {
    const envelope = signCose1(utf8('{"a":1}'), mlDsa87Signer(K.answer), 'application/vnd.svc.answer-receipt+json', {
      iss: 'svc',
      iat: 1,
    });
    expect(verifyStatement(envelope, policy.service)).toMatchObject({ ok: false, error: 'not_a_statement' });
    expect(checkRegistration(envelope, policy)).toMatchObject({ ok: false, error: 'not_a_statement' });
    // With a log's genuine receipt added, it still never verifies as a transparent statement.
    const log = logKeygen('subtree/v1', seed('log'));
    const tree = new MemoryTree();
    tree.appendData(statementLeaf(envelope));
    const receipt = makeReceipt(
      { index: 0, size: 1, path: inclusionProof(tree, 0, 1), root: treeRoot(tree, 1), iss: 'o' },
      logKeySigner(log),
    );
    const v = verifyTransparentStatement(withReceipts(envelope, [receipt]), {
      issuers: policy.service,
      logs: [{ keys: [coseKey('ML-DSA-44', log.publicKey)] }],
    });
    expect(v.ok).toBe(false);
    expect(v.statement.error).toBe('not_a_statement');
  });

  it('a statement without sub verifies (the CCF ledger writes none) but does not register here', () => {
    const c = readCose1(theirs());
    const header = new Map(readCose1(theirs()).header);
    header.set(15, new Map([[1, 'https://issuer.example']]));
    const protectedBytes = cborEncode(header);
    const sig = listed.sign(sigStructure(protectedBytes, c.payload!));
    const noSub = cborEncode(new Tagged(18, [protectedBytes, new Map(), c.payload, sig]));
    expect(verifyStatement(noSub, policy.listed).ok).toBe(true);
    expect(checkRegistration(noSub, policy)).toMatchObject({ ok: false, error: 'not_a_statement' });
  });
});

describe('row 2: an entry depends only on what the issuer signed', () => {
  it('property: any unprotected member but receipts is refused at registration; receipts never change the leaf', () => {
    const base = theirs();
    expect(checkRegistration(base, policy).ok).toBe(true);
    const label = fc.oneof(
      fc.integer({ min: -1000, max: 1000 }).filter((l) => l !== 394),
      fc.string({ maxLength: 4 }),
    );
    const value = fc.oneof(fc.integer(), fc.string({ maxLength: 8 }), fc.uint8Array({ maxLength: 8 }), fc.constant(null));
    fc.assert(
      fc.property(fc.uniqueArray(fc.tuple(label, value), { minLength: 1, maxLength: 4, selector: ([l]) => l }), (members) => {
        const bytes = withUnprotected(base, new Map(members));
        const v = checkRegistration(bytes, policy);
        expect(v.ok).toBe(false);
        expect(v.error).toBe('unprotected');
      }),
      { numRuns: 200, seed: 2 },
    );
    const withReceipt = withUnprotected(base, new Map([[394, [new Uint8Array([1, 2])]]]));
    expect(checkRegistration(withReceipt, policy)).toMatchObject({ ok: true, leaf: toHex(statementLeaf(base)) });
  });
});

describe('row 3: the policy binds what a key may claim', () => {
  it("the service's answer key registers its own statements; a listed key registers its own claims", () => {
    expect(checkRegistration(ours(), policy).ok).toBe(true);
    expect(checkRegistration(theirs(), policy).ok).toBe(true);
  });

  it.each([
    ["the service's iss", { iss: 'svc' }],
    ["a subject in the service's answer namespace", { sub: `urn:svc:answer:${toHex(h)}` }],
    ["the service's statement typ", { typ: RESERVED.typ }],
  ])('a listed key claiming %s is not_allowed', (_what, over) => {
    const st = theirs(over);
    // The signature itself is good: the verifier alone says so, the policy refuses.
    expect(verifyStatement(st, policy.listed).ok).toBe(true);
    expect(checkRegistration(st, policy)).toMatchObject({ ok: false, error: 'not_allowed' });
  });

  it("the service's key registers only the service's claims; a stranger's key nothing", () => {
    expect(checkRegistration(theirs({}, mlDsa87Signer(K.answer)), policy)).toMatchObject({ ok: false, error: 'unknown_key' });
    expect(checkRegistration(theirs({}, stranger), policy)).toMatchObject({ ok: false, error: 'unknown_key' });
    expect(checkRegistration(ours({}, stranger), policy)).toMatchObject({ ok: false, error: 'not_allowed' });
  });

  it('ES256: (r, n - s) verifies as ECDSA allows, but registers only in low-S form', () => {
    const sk = seed('es256 issuer');
    const pub = p256.getPublicKey(sk, false);
    const header = new Map<number, unknown>([
      [1, -7],
      [
        15,
        new Map<number, unknown>([
          [1, 'https://es.example'],
          [2, 'urn:es:1'],
        ]),
      ],
    ]);
    const protectedBytes = cborEncode(header);
    const low = p256.sign(sigStructure(protectedBytes, h), sk, { lowS: true });
    const n = p256.Point.CURVE().n;
    const s = BigInt(`0x${toHex(low.subarray(32))}`);
    const high = new Uint8Array([...low.subarray(0, 32), ...fromHex((n - s).toString(16).padStart(64, '0'), 32)!]);
    const sign1 = (sig: Uint8Array) => cborEncode(new Tagged(18, [protectedBytes, new Map(), h, sig]));
    const es = { alg: 'ES256' as const, publicKey: pub };
    const esPolicy = { ...policy, listed: [es] };
    expect(ecdsaLowS('ES256', low)).toBe(true);
    expect(ecdsaLowS('ES256', high)).toBe(false);
    expect(verifyStatement(sign1(low), [es]).ok).toBe(true);
    expect(verifyStatement(sign1(high), [es]).ok).toBe(true);
    expect(checkRegistration(sign1(low), esPolicy).ok).toBe(true);
    expect(checkRegistration(sign1(high), esPolicy)).toMatchObject({ ok: false, error: 'malformed' });
  });
});

describe('row 9: a key is matched by what identifies it in each form', () => {
  it("the project's own statement checked with its own JWK (kid = RFC 7638 thumbprint) and COSE_Key (kid = RFC 9679)", () => {
    const st = ours();
    const jwk = publicJwk('ML-DSA-87', K.answer.publicKey);
    expect(jwk.kid).toBeTruthy();
    expect(verifyStatement(st, [jwk]).ok).toBe(true);
    expect(verifyStatement(st, [coseKey('ML-DSA-87', K.answer.publicKey)]).ok).toBe(true);
    // Another key's JWK with its kid is still no candidate.
    expect(verifyStatement(st, [publicJwk('Ed25519', listed.publicKey)]).error).toBe('unknown_key');
    expect(verifyStatement(st, [{ ...publicJwk('ML-DSA-87', testKeys('other').answer.publicKey) }]).error).toBe('unknown_key');
    // A kid is a hint, the key decides: the key's own thumbprints name it whatever kid its set gave
    // it, and another key given the statement's kid is tried and fails on the signature.
    expect(verifyStatement(st, [{ ...jwk, kid: 'someone-else' }]).ok).toBe(true);
    const headerKid = toHex(readCose1(st).header.get(4) as Uint8Array);
    const impostor = { ...publicJwk('ML-DSA-87', testKeys('other').answer.publicKey), kid: headerKid };
    expect(verifyStatement(st, [impostor]).error).toBe('bad_statement_signature');
  });

  for (const alg of ['ML-DSA-44', 'ML-DSA-65', 'ML-DSA-87'] as const) {
    it(`RFC 9964 ${alg}: the example's header kid finds the key given as JWK with its kid`, () => {
      const name = alg.replaceAll('-', '_');
      const jose = rfc9964[`${name}.jose`] as { jwk: Record<string, string> };
      const cose = rfc9964[`${name}.cose`] as { sign1: string };
      const { priv: _priv, ...jwk } = jose.jwk;
      const headerKid = readCose1(fromHex(cose.sign1)!).header.get(4);
      expect(headerKid).toBeInstanceOf(Uint8Array);
      const found = candidateKeys([jwk], alg, headerKid as Uint8Array);
      expect(found).toHaveLength(1);
      expect(toHex(found[0]!.publicKey)).toBe(toHex(fromBase64Url(jwk.pub!)!));
      // Before round five the JWK's kid (RFC 7638) was compared with the header's (RFC 9679): never equal.
      expect(jwk.kid).not.toBe(toHex(headerKid as Uint8Array));
      const other = { ...publicJwk('ML-DSA-87', testKeys('other').answer.publicKey) };
      expect(candidateKeys([other], alg, headerKid as Uint8Array)).toHaveLength(0);
    });
  }
});

describe('row 6: a receipt does not present its unsigned position as verified', () => {
  it('index and size are reported with positionSigned false, true only against a trusted checkpoint of that size', () => {
    const log = logKeygen('ed25519', seed('pos log'));
    const keys = [coseKey('Ed25519', log.publicKey)];
    const st = theirs();
    const tree = new MemoryTree();
    for (let i = 0; i < 8; i++) tree.appendData(i === 5 ? statementLeaf(st) : seed(`f${i}`));
    const root = treeRoot(tree, 8);
    const receipt = makeReceipt({ index: 5, size: 8, path: inclusionProof(tree, 5, 8), root, iss: 'o' }, logKeySigner(log));
    const leaf = statementLeaf(st);
    expect(verifyReceipt(receipt, leaf, { keys })).toMatchObject({ ok: true, index: 5, size: 8, positionSigned: false });
    expect(verifyReceipt(receipt, leaf, { keys, checkpoint: { size: 8, root } })).toMatchObject({ ok: true, positionSigned: true });
  });
});

describe("row 13: a statement's entry can never be an answer's", () => {
  const isUtf8 = (b: Uint8Array) => {
    try {
      new TextDecoder('utf-8', { fatal: true }).decode(b);
      return true;
    } catch {
      return false;
    }
  };

  it('the old argument was wrong: 0xd2 0x84, how every statement starts, is valid UTF-8 (U+0484)', () => {
    expect(isUtf8(new Uint8Array([0xd2, 0x84]))).toBe(true);
  });

  it('property: 0x0f followed by any map header (0xa0-0xbb) is in no UTF-8 text, wherever it stands', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 40 }), fc.integer({ min: 0xa0, max: 0xbb }), fc.uint8Array({ maxLength: 40 }), (a, m, b) => {
        expect(isUtf8(new Uint8Array([...a, 0x0f, m, ...b]))).toBe(false);
      }),
      { numRuns: 500, seed: 13 },
    );
  });

  it('property: every statement that verifies holds that pair (its CWT claims) and is not UTF-8 text', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 30 }), fc.string({ maxLength: 30 }), fc.nat(), (iss, sub, iat) => {
        const st = theirs({ iss, sub, iat });
        expect(verifyStatement(st, policy.listed).ok).toBe(true);
        const at = st.findIndex((x, i) => x === 0x0f && (st[i + 1] ?? 0) >= 0xa0 && (st[i + 1] ?? 0) <= 0xbb);
        expect(at).toBeGreaterThan(0);
        expect(isUtf8(st)).toBe(false);
      }),
      { numRuns: 100, seed: 130 },
    );
  });
});
