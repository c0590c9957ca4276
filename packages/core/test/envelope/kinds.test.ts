// Round five (#41) on envelopes: a verdict always says the kind that was signed, the kind is
// checked unless a caller opts out, a key the envelope brings (x5chain, x5u ...) is refused as the
// JWS reader refuses x5c, and a signature by a key the verifier never pinned is integrity, never
// origin (keyRecognized false).
import { describe, expect, it } from 'vitest';
import { namesFor, verifyBundle } from '@svc/core';
import { fromBase64Url, toHex, utf8 } from '@svc/core/primitives';
import { issueProof, issueRun } from '@svc/core/issue';
import {
  cborEncode,
  coseKey,
  ed25519Signer,
  envelopeChecker,
  envelopeMaker,
  envelopeTypes,
  publicJwk,
  readCose1,
  signCose1,
  sigStructure,
  verifyCose1,
  verifyJws,
  type GeneralJws,
} from '@svc/core/envelope';
import { Tagged } from '../../src/envelope/cbor.js';
import { K, trusted, verdictOf } from '../helpers.js';

const names = namesFor('svc');
const ED_SEED = new Uint8Array(32).fill(9);
const ed = ed25519Signer(ED_SEED);
const maker = envelopeMaker({ formats: ['jws', 'cose'], ed25519: ED_SEED });
const answer = issueProof({ answer: 'An answer.', model: 'm', ts: 1_767_225_600 }, { receipt: K.answer, envelopes: maker });
const run = issueRun(
  {
    id: 'run-1',
    goal: 'Summarise the report',
    steps: [{ i: 0, action: 'fetch', output_sha256: 'aa'.repeat(32), verify: 'schema', credits: 3 }],
    status: 'done',
    budgetCredits: 10,
    spentCredits: 3,
  },
  { model: 'm-1', ts: 1_767_225_600 },
  { receipt: K.autopilot, envelopes: maker },
);
const jwks = { keys: [publicJwk('Ed25519', ed.publicKey)] };
const coseKeys = [coseKey('Ed25519', ed.publicKey)];
const envelopesOf = (b: unknown) => (b as { receipt: { envelopes: { jws: GeneralJws; cose: string[] } } }).receipt.envelopes;
const edJws = (b: unknown): GeneralJws => {
  const jws = envelopesOf(b).jws;
  return { payload: jws.payload, signatures: [jws.signatures[1]!] };
};
const edCose = (b: unknown) => fromBase64Url(envelopesOf(b).cose[1]!)!;

describe('row 7: the kind signed is reported, and checked unless the caller opts out', () => {
  const answerTypes = envelopeTypes(names, 'answer');
  const runTypes = envelopeTypes(names, 'run');

  it("a run receipt's Ed25519 envelope never verifies as an answer's: the one Ed25519 key signs every kind", () => {
    expect(verifyJws(edJws(run), jwks, { typ: answerTypes.jose })).toMatchObject({ ok: false, error: 'wrong_typ' });
    expect(verifyCose1(edCose(run), coseKeys, { typ: answerTypes.cose })).toMatchObject({ ok: false, error: 'wrong_typ' });
    expect(verifyJws(edJws(run), jwks, { typ: runTypes.jose }).ok).toBe(true);
    expect(verifyCose1(edCose(run), coseKeys, { typ: runTypes.cose }).ok).toBe(true);
  });

  it('without a typ the kind is not taken on trust: wrong_typ; with typ null any kind, and the verdict names it', () => {
    // From JavaScript an options object without typ is what a caller forgetting it sends.
    const none = {} as { typ: null };
    expect(verifyJws(edJws(answer), jwks, none)).toMatchObject({ ok: false, error: 'wrong_typ' });
    expect(verifyCose1(edCose(answer), coseKeys, none)).toMatchObject({ ok: false, error: 'wrong_typ' });
    expect((verifyJws as (...a: unknown[]) => { error?: string })(edJws(answer), jwks).error).toBe('wrong_typ');
    const j = verifyJws(edJws(run), jwks, { typ: null });
    expect(j).toMatchObject({ ok: true, signatures: [{ ok: true, typ: runTypes.jose }] });
    const c = verifyCose1(edCose(run), coseKeys, { typ: null });
    expect(c).toMatchObject({ ok: true, signatures: [{ ok: true, typ: runTypes.cose }] });
    // A failure names the typ that was signed too.
    expect(verifyJws(edJws(run), jwks, { typ: answerTypes.jose }).signatures[0]).toMatchObject({ typ: runTypes.jose });
  });
});

describe('row 8: keys come from the verifier, never from the envelope or the bundle', () => {
  it.each([
    [32, 'x5bag'],
    [33, 'x5chain'],
    [34, 'x5t'],
    [35, 'x5u'],
  ])('a COSE envelope whose protected header carries label %i (%s) is refused, its signature never checked', (label) => {
    const c = readCose1(edCose(answer));
    const header = new Map(c.header);
    header.set(label, label === 35 ? 'https://keys.example/k' : new Uint8Array(32));
    const protectedBytes = cborEncode(header);
    const sig = ed.sign(sigStructure(protectedBytes, c.payload!));
    const bytes = cborEncode(new Tagged(18, [protectedBytes, new Map(), c.payload, sig]));
    expect(verifyCose1(bytes, coseKeys, { typ: null })).toMatchObject({ ok: false, error: 'malformed' });
  });

  it("a stranger's Ed25519 envelopes named by the bundle: integrity holds, keyRecognized false; the pinned key true", async () => {
    const stranger = issueProof(
      { answer: 'An answer.', model: 'm', ts: 1_767_225_600 },
      { receipt: K.answer, envelopes: envelopeMaker({ formats: ['jws', 'cose'], ed25519: new Uint8Array(32).fill(66) }) },
    );
    const pinned = [{ algo: 'Ed25519', public_key_hex: toHex(ed.publicKey) }];
    const opts = { ...trusted, envelopes: envelopeChecker, trustedEnvelopeKeys: pinned };
    const theirs = verdictOf(await verifyBundle(stranger, opts), 'proof');
    const ours = verdictOf(await verifyBundle(answer, opts), 'proof');
    const sigs = (v: typeof ours) => [
      ...(v.receipt.envelopes?.jws?.signatures ?? []),
      ...(v.receipt.envelopes?.cose?.flatMap((c) => c.signatures) ?? []),
    ];
    expect(sigs(theirs).map((s) => [s.alg, s.ok, s.keyRecognized])).toEqual([
      ['ML-DSA-87', true, true],
      ['Ed25519', true, false],
      ['ML-DSA-87', true, true],
      ['Ed25519', true, false],
    ]);
    expect(sigs(ours).every((s) => s.ok && s.keyRecognized)).toBe(true);
    // Without pinned envelope keys, no Ed25519 signature is anyone's.
    const bare = verdictOf(await verifyBundle(answer, { ...trusted, envelopes: envelopeChecker }), 'proof');
    expect(
      sigs(bare)
        .filter((s) => s.alg === 'Ed25519')
        .every((s) => s.keyRecognized === false),
    ).toBe(true);
  });
});

describe('signCose1 and the default check agree', () => {
  it('an envelope made with a typ verifies with that typ only', () => {
    const bytes = signCose1(utf8('{}'), ed, 'application/x+json', { iss: 'svc', iat: 1 });
    expect(verifyCose1(bytes, coseKeys, { typ: 'application/x+json' }).ok).toBe(true);
    expect(verifyCose1(bytes, coseKeys, { typ: 'application/y+json' }).error).toBe('wrong_typ');
  });
});
