// Receipts as JWS and COSE_Sign1 (#33): issued beside the native receipt, checked by verifyBundle
// as a layer of the receipt (one that fails fails the bundle, V5), never confused with the native
// signature, and refused with a typed reason for hostile JOSE.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { namesFor, verifyBundle } from '@svc/core';
import { fromBase64Url, fromHex, sign, toBase64Url, utf8, verifyMlDsa87 } from '@svc/core/primitives';
import { issueProof, issueRun, receiptMessage } from '@svc/core/issue';
import {
  ed25519Signer,
  envelopeChecker,
  envelopeMaker,
  envelopeTypes,
  mlDsa87Signer,
  publicJwk,
  signJws,
  verifyJws,
  type GeneralJws,
} from '@svc/core/envelope';
import { K, clone, trusted, verdictOf } from '../helpers.js';

const names = namesFor('svc');
const ED_SEED = new Uint8Array(32).fill(7);
const input = { answer: 'Paris is the capital of France.', model: 'm-1', ts: 1_767_225_600, prompt: 'Capital of France?' };
const enveloped = issueProof(input, { receipt: K.answer, envelopes: envelopeMaker({ formats: ['jws', 'cose'], ed25519: ED_SEED }) });
const types = envelopeTypes(names, 'answer');

const checked = { ...trusted, envelopes: envelopeChecker };

async function receiptVerdict(b: unknown) {
  const r = await verifyBundle(b, checked);
  return { overallOk: r.verdict.overallOk, receipt: verdictOf(r, 'proof').receipt };
}

describe('issuing envelopes', () => {
  it('a proof with JWS and COSE envelopes verifies, every envelope and signature reported', async () => {
    const e = enveloped.receipt.envelopes as { jws: GeneralJws; cose: string[] };
    expect(e.jws.signatures).toHaveLength(2);
    expect(e.cose).toHaveLength(2);
    expect(fromBase64Url(e.jws.payload)).toEqual(receiptMessage(enveloped.receipt));
    expect(enveloped.receiptKey.ed25519_public_key_hex).toMatch(/^[0-9a-f]{64}$/);
    const v = await receiptVerdict(enveloped);
    expect(v.overallOk).toBe(true);
    expect(v.receipt.envelopes).toEqual({
      checked: true,
      ok: true,
      jws: {
        ok: true,
        signatures: [
          // The signed typ is reported; the receipt key is pinned, the Ed25519 key only named by
          // the bundle (no trustedEnvelopeKeys here): integrity, not origin.
          {
            alg: 'ML-DSA-87',
            kid: publicJwk('ML-DSA-87', K.answer.publicKey).kid,
            ok: true,
            typ: 'vnd.svc.answer-receipt+json',
            keyRecognized: true,
          },
          {
            alg: 'Ed25519',
            kid: publicJwk('Ed25519', ed25519Signer(ED_SEED).publicKey).kid,
            ok: true,
            typ: 'vnd.svc.answer-receipt+json',
            keyRecognized: false,
          },
        ],
      },
      cose: [
        { ok: true, signatures: [expect.objectContaining({ alg: 'ML-DSA-87', ok: true })] },
        { ok: true, signatures: [expect.objectContaining({ alg: 'Ed25519', ok: true })] },
      ],
    });
  });

  it('without a checker, envelopes are reported unchecked and do not count, broken or not', async () => {
    const broken = clone(enveloped);
    (broken.receipt.envelopes as { cose: string[] }).cose[0] = 'AAAA';
    for (const b of [enveloped, broken]) {
      const r = await verifyBundle(b, trusted);
      expect(r.verdict.overallOk).toBe(true);
      expect(verdictOf(r, 'proof').receipt.envelopes).toEqual({ checked: false });
    }
    expect((await receiptVerdict(broken)).overallOk).toBe(false);
  });

  it('without envelopes a bundle is what it always was: no member, no verdict entry', async () => {
    const plain = issueProof(input, { receipt: K.answer });
    expect(plain.receipt).not.toHaveProperty('envelopes');
    expect(plain.receiptKey).not.toHaveProperty('ed25519_public_key_hex');
    // Same signed core, same native signature (deterministic signing): envelopes sit beside it.
    const { envelopes: _e, ...rest } = enveloped.receipt;
    expect(rest).toEqual(plain.receipt);
    expect((await receiptVerdict(plain)).receipt).not.toHaveProperty('envelopes');
  });

  it('the native signature and the envelope signatures can never stand for each other (FIPS 204 M differs)', () => {
    const e = enveloped.receipt.envelopes as { jws: GeneralJws; cose: string[] };
    const core = receiptMessage(enveloped.receipt)!;
    const native = fromHex(enveloped.receipt.sig)!;
    const s = e.jws.signatures[0]!;
    const jwsInput = utf8(`${s.protected}.${e.jws.payload}`);
    const jwsSig = fromBase64Url(s.signature)!;
    expect(verifyMlDsa87(K.answer.publicKey, jwsInput, jwsSig, '')).toBe(true);
    expect(verifyMlDsa87(K.answer.publicKey, core, native, names.contexts.answer)).toBe(true);
    // Native signature as an envelope signature, and the reverse: refused both ways.
    expect(verifyMlDsa87(K.answer.publicKey, core, native, '')).toBe(false);
    expect(verifyMlDsa87(K.answer.publicKey, jwsInput, native, '')).toBe(false);
    expect(verifyMlDsa87(K.answer.publicKey, jwsInput, jwsSig, names.contexts.answer)).toBe(false);
    expect(verifyMlDsa87(K.answer.publicKey, core, jwsSig, names.contexts.answer)).toBe(false);
  });

  it("a run receipt's envelope is not an answer's: its typ differs, and moved onto an answer it fails", async () => {
    const doc = {
      id: 'run-1',
      goal: 'Summarise the report',
      steps: [{ i: 0, action: 'fetch', output_sha256: 'aa'.repeat(32), verify: 'schema', credits: 3 }],
      status: 'done',
      budgetCredits: 10,
      spentCredits: 3,
    };
    const run = issueRun(
      doc,
      { model: 'm-1', ts: 1_767_225_600 },
      { receipt: K.autopilot, envelopes: envelopeMaker({ formats: ['jws', 'cose'] }) },
    );
    const runJws = (run.receipt as { envelopes: { jws: GeneralJws } }).envelopes.jws;
    const header = JSON.parse(new TextDecoder().decode(fromBase64Url(runJws.signatures[0]!.protected)!));
    expect(header.typ).toBe(envelopeTypes(names, 'run').jose);
    expect((await verifyBundle(run, checked)).verdict.overallOk).toBe(true);
    const moved = clone(enveloped);
    moved.receipt.envelopes = { jws: runJws };
    const v = await receiptVerdict(moved);
    expect(v.overallOk).toBe(false);
    expect(v.receipt.sigOk).toBe(true);
    expect(v.receipt.envelopes?.jws?.ok).toBe(false);
  });
});

/** Change one base64url character of a string (keeping it base64url). */
const flip = (s: string, i: number) => {
  const j = i % s.length;
  return s.slice(0, j) + (s[j] === 'A' ? 'B' : 'A') + s.slice(j + 1);
};

describe('differential: the native receipt verifies exactly when its envelopes do, until an envelope alone is changed', () => {
  it('property: a change to the receipt core fails both; a change to an envelope fails the envelope and the bundle only', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('core', 'payload', 'protected', 'signature', 'cose'), fc.nat(), async (where, at) => {
        const b = clone(enveloped);
        const e = b.receipt.envelopes as { jws: GeneralJws; cose: string[] };
        if (where === 'core') b.receipt.ts += 1 + (at % 1000);
        else if (where === 'payload') e.jws.payload = flip(e.jws.payload, at);
        else if (where === 'protected') e.jws.signatures[at % 2]!.protected = flip(e.jws.signatures[at % 2]!.protected, at);
        else if (where === 'signature') e.jws.signatures[at % 2]!.signature = flip(e.jws.signatures[at % 2]!.signature, at);
        else e.cose[at % 2] = flip(e.cose[at % 2]!, at);
        const v = await receiptVerdict(b);
        expect(v.overallOk).toBe(false);
        expect(v.receipt.envelopes?.ok).toBe(false);
        // The native signature stands or falls with the core alone.
        expect(v.receipt.sigOk).toBe(where !== 'core');
      }),
      { numRuns: 25, seed: 3301 },
    );
  });
});

describe('hostile JOSE gets a typed refusal, never a pass or a throw', () => {
  const jwks = { keys: [publicJwk('ML-DSA-87', K.answer.publicKey)] };
  const payload = receiptMessage(enveloped.receipt)!;
  const good = signJws(payload, [mlDsa87Signer(K.answer)], types.jose);
  const withHeader = (h: Record<string, unknown>, signer = mlDsa87Signer(K.answer)): GeneralJws => {
    const protectedB64 = toBase64Url(utf8(JSON.stringify(h)));
    const sig = signer.sign(utf8(`${protectedB64}.${good.payload}`));
    return { payload: good.payload, signatures: [{ protected: protectedB64, signature: toBase64Url(sig) }] };
  };
  const kid = publicJwk('ML-DSA-87', K.answer.publicKey).kid;
  const cases: [string, unknown, string][] = [
    ['alg none', withHeader({ alg: 'none', kid, typ: types.jose }), 'unsupported_alg'],
    ['alg HS256', withHeader({ alg: 'HS256', kid, typ: types.jose }), 'unsupported_alg'],
    ['crit', withHeader({ alg: 'ML-DSA-87', kid, typ: types.jose, crit: ['exp'], exp: 1 }), 'crit'],
    ['b64 false', withHeader({ alg: 'ML-DSA-87', kid, typ: types.jose, b64: false, crit: ['b64'] }), 'crit'],
    ['an embedded jwk', withHeader({ alg: 'ML-DSA-87', kid, typ: types.jose, jwk: jwks.keys[0] }), 'malformed'],
    ['a wrong typ', withHeader({ alg: 'ML-DSA-87', kid, typ: envelopeTypes(names, 'run').jose }), 'wrong_typ'],
    ['an unknown kid', withHeader({ alg: 'ML-DSA-87', kid: 'x', typ: types.jose }), 'unknown_key'],
    ['a key from another kind', signJws(payload, [mlDsa87Signer(K.autopilot)], types.jose), 'unknown_key'],
    [
      'a non-empty context',
      {
        ...good,
        signatures: [
          {
            ...good.signatures[0]!,
            signature: toBase64Url(sign(K.answer, utf8(`${good.signatures[0]!.protected}.${good.payload}`), 'ctx')),
          },
        ],
      },
      'bad_signature',
    ],
    ['an unprotected header', { ...good, signatures: [{ ...good.signatures[0]!, header: { kid } }] }, 'malformed'],
    ['a 1 MiB header', { ...good, signatures: [{ ...good.signatures[0]!, protected: 'e'.repeat(1 << 20) }] }, 'malformed'],
    ['a padded payload', { ...good, payload: `${good.payload}=` }, 'malformed'],
    [
      'a repeated header member',
      { ...good, signatures: [{ protected: toBase64Url(utf8('{"alg":"ML-DSA-87","alg":"none"}')), signature: 'AA' }] },
      'malformed',
    ],
    ['no signatures', { payload: good.payload, signatures: [] }, 'malformed'],
    ['five signatures', { payload: good.payload, signatures: Array(5).fill(good.signatures[0]) }, 'malformed'],
    ['a compact string', 'a.b.c', 'malformed'],
    ['a flattened JWS', { payload: good.payload, ...good.signatures[0] }, 'malformed'],
  ];
  for (const [name, jws, code] of cases)
    it(`${name}: ${code}`, () => {
      const v = verifyJws(jws, jwks, { typ: types.jose });
      expect(v.ok).toBe(false);
      expect(v.error).toBe(code);
    });

  it('the good one passes, and the Ed25519 signer is checked the same way', () => {
    expect(verifyJws(good, jwks, { typ: types.jose }).ok).toBe(true);
    const ed = ed25519Signer(ED_SEED);
    const both = signJws(payload, [mlDsa87Signer(K.answer), ed], types.jose);
    expect(verifyJws(both, { keys: [...jwks.keys, publicJwk('Ed25519', ed.publicKey)] }, { typ: types.jose }).ok).toBe(true);
    // A set without the Ed25519 key cannot vouch for that signature: the envelope fails.
    expect(verifyJws(both, jwks, { typ: types.jose })).toMatchObject({ ok: false, error: 'unknown_key' });
  });
});
