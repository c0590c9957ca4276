import { describe, expect, it } from 'vitest';
import { verifyBundle } from '../../src/dispatch.js';
import { issueProof } from '../../src/issue/bundles.js';
import { toReceiptKey } from '../../src/issue/keys.js';
import { namesFor } from '../../src/names.js';
import { K, clone, expectSvcError, flipHex, trusted, verdictOf } from '../helpers.js';

const base = { answer: 'The capital of France is Paris. 🇫🇷', model: 'council-v1', ts: 1_700_000_000, created: 1_700_000_001 };
const plain = issueProof(base, { receipt: K.answer });

describe('ProofBundle: receipt layer', () => {
  it('a plain bundle verifies; origin only with the pinned key', async () => {
    const r = await verifyBundle(plain, trusted);
    expect(r.service).toBe('svc');
    expect(r.kind).toBe('svc-proof');
    expect(r.created).toBe(1_700_000_001);
    expect(r.verdict.overallOk).toBe(true);
    expect(r.verdict.checks).toBe(1);
    expect(r.signerRecognized).toBe(true);
    const v = verdictOf(r, 'proof');
    expect(v.receipt).toMatchObject({
      present: true,
      answerHashOk: true,
      sigOk: true,
      councilGrounded: true,
      promptBound: false,
      promptOk: true,
    });
    expect(v.receipt.questionBinding).toBeUndefined();
    expect(r.disclaimer).toMatch(/Neither attests that the content is accurate/);
    expect(r.disclaimer).toMatch(/not a FIPS 140/);
    const unpinned = await verifyBundle(plain);
    expect(unpinned.verdict.overallOk).toBe(true);
    expect(unpinned.signerRecognized).toBe(false);
  });

  it('recognition compares key bytes and the pinned context, never key_id', async () => {
    const other = toReceiptKey(K.autopilot, namesFor().contexts.answer);
    const sameIdOtherBytes = { ...other, key_id: plain.receipt.key_id };
    expect((await verifyBundle(plain, { trustedKeys: [sameIdOtherBytes] })).signerRecognized).toBe(false);
    const wrongContext = { ...toReceiptKey(K.answer, namesFor().contexts.autopilot) };
    expect((await verifyBundle(plain, { trustedKeys: [wrongContext] })).signerRecognized).toBe(false);
  });

  it('an altered answer fails the answer hash', async () => {
    const b = { ...clone(plain), answer: `${plain.answer} ` };
    const v = verdictOf(await verifyBundle(b, trusted), 'proof');
    expect(v.overallOk).toBe(false);
    expect(v.receipt.answerHashOk).toBe(false);
    expect(v.receipt.sigOk).toBe(true);
    expect(v.signerRecognized).toBe(false);
  });

  it('an altered or mis-spelled signature fails, never throws', async () => {
    for (const sig of [flipHex(plain.receipt.sig), plain.receipt.sig.toUpperCase(), plain.receipt.sig.slice(2), '', 'zz', 42, null]) {
      const b = clone(plain) as any;
      b.receipt.sig = sig;
      const v = verdictOf(await verifyBundle(b, trusted), 'proof');
      expect(v.overallOk, String(sig).slice(0, 12)).toBe(false);
      expect(v.receipt.sigOk).toBe(false);
    }
  });

  it('a key_id that does not match the key bytes fails', async () => {
    const b = clone(plain);
    b.receipt.key_id = flipHex(b.receipt.key_id);
    expect((await verifyBundle(b, trusted)).verdict.overallOk).toBe(false);
    const c = clone(plain);
    c.receiptKey.key_id = flipHex(c.receiptKey.key_id);
    expect((await verifyBundle(c, trusted)).verdict.overallOk).toBe(false);
  });

  it('the receiptKey context label is never used to choose how to verify', async () => {
    const b = clone(plain);
    b.receiptKey.context = 'svc-sth-v1';
    const r = await verifyBundle(b, trusted);
    expect(r.verdict.overallOk).toBe(true);
    expect(r.signerRecognized).toBe(true);
  });

  it("an answer signed for another deployment is not this deployment's kind", async () => {
    const acme = issueProof(base, { receipt: K.answer }, { service: 'acme' });
    await expectSvcError(verifyBundle(acme), 'unknown_kind', 422);
    const r = await verifyBundle(acme, { service: 'acme' });
    expect(r.service).toBe('acme');
    expect(r.verdict.overallOk).toBe(true);
    // Relabelled as svc, the acme signature does not verify under svc's context.
    expect((await verifyBundle({ ...clone(acme), kind: 'svc-proof' })).verdict.overallOk).toBe(false);
  });

  it('council_grounded false is signed and reported', async () => {
    const b = issueProof({ ...base, council_grounded: false }, { receipt: K.answer });
    const v = verdictOf(await verifyBundle(b, trusted), 'proof');
    expect(v.overallOk).toBe(true);
    expect(v.receipt.councilGrounded).toBe(false);
    const stripped = clone(b);
    delete stripped.receipt.council_grounded;
    expect((await verifyBundle(stripped, trusted)).verdict.overallOk).toBe(false);
  });

  it('a bundle with no layer does not pass (V5)', async () => {
    const r = await verifyBundle({ kind: 'svc-proof', answer: 'x' });
    expect(r.verdict.overallOk).toBe(false);
    expect(r.verdict.checks).toBe(0);
    expect(verdictOf(r, 'proof').receipt.present).toBe(false);
  });
});

describe('ProofBundle: question binding (V5, V6)', () => {
  it('v:1 bound question that matches is entire-input', async () => {
    const b = issueProof({ ...base, prompt: 'What is the capital of France?' }, { receipt: K.answer });
    expect(b.receipt.v).toBe(1);
    const v = verdictOf(await verifyBundle(b, trusted), 'proof');
    expect(v.overallOk).toBe(true);
    expect(v.receipt).toMatchObject({ promptBound: true, promptOk: true, questionBinding: 'entire-input' });
    expect(v.promptUnverified).toBeUndefined();
  });

  it('a swapped bound question fails the bundle', async () => {
    const b = issueProof({ ...base, prompt: 'What is the capital of France?' }, { receipt: K.answer });
    for (const prompt of ['What is the capital of Spain?', 42, null, ['What is the capital of France?']]) {
      const v = verdictOf(await verifyBundle({ ...clone(b), prompt }, trusted), 'proof');
      expect(v.overallOk).toBe(false);
      expect(v.receipt.promptOk).toBe(false);
      expect(v.receipt.questionBinding).toBe('none');
      expect(v.promptUnverified).toBe(true);
    }
  });

  it('a legacy receipt leaves the question unverified but does not fail', async () => {
    const b = issueProof({ ...base, prompt: 'Q?', bindQuestion: false }, { receipt: K.answer });
    const v = verdictOf(await verifyBundle(b, trusted), 'proof');
    expect(v.overallOk).toBe(true);
    expect(v.receipt).toMatchObject({ promptBound: false, promptOk: true, questionBinding: 'none' });
    expect(v.promptUnverified).toBe(true);
  });

  it('v:2 framing: all zero is entire-input, any flag is current-message', async () => {
    const zero = issueProof(
      { ...base, prompt: 'Q', framing: { persona: 0, voice: 0, attachment: 0, history_turns: 0 } },
      { receipt: K.answer },
    );
    expect(zero.receipt.v).toBe(2);
    const vz = verdictOf(await verifyBundle(zero, trusted), 'proof');
    expect(vz.overallOk).toBe(true);
    expect(vz.receipt.questionBinding).toBe('entire-input');
    expect(vz.receipt.framing).toEqual({ present: true, ok: true, persona: 0, voice: 0, attachment: 0, historyTurns: 0 });
    const flagged = issueProof(
      { ...base, prompt: 'Q', framing: { persona: 1, voice: 0, attachment: 1, history_turns: 3 } },
      { receipt: K.answer },
    );
    const vf = verdictOf(await verifyBundle(flagged, trusted), 'proof');
    expect(vf.receipt.questionBinding).toBe('current-message');
    expect(vf.receipt.framing).toEqual({ present: true, ok: true, persona: 1, voice: 0, attachment: 1, historyTurns: 3 });
  });

  it('v:2 with missing or altered framing: promptOk false, binding none, no flags disclosed', async () => {
    const b = issueProof(
      { ...base, prompt: 'Q', framing: { persona: 1, voice: 0, attachment: 0, history_turns: 0 } },
      { receipt: K.answer },
    );
    const missing = clone(b);
    delete missing.receipt.framing;
    const altered = clone(b) as any;
    altered.receipt.framing.persona = 0;
    const badSig = clone(b) as any;
    badSig.receipt.framing.sig = flipHex(badSig.receipt.framing.sig);
    for (const [name, x, present] of [
      ['missing', missing, false],
      ['altered', altered, true],
      ['bad sig', badSig, true],
    ] as const) {
      const v = verdictOf(await verifyBundle(x, trusted), 'proof');
      expect(v.overallOk, name).toBe(false);
      expect(v.receipt.sigOk, name).toBe(true); // framing is outside the receipt signature
      expect(v.receipt.promptOk, name).toBe(false);
      expect(v.receipt.questionBinding, name).toBe('none');
      expect(v.receipt.framing, name).toEqual({ present, ok: false });
    }
  });
});

describe('ProofBundle: excerpt (V7)', () => {
  const answer = 'a😀b𝄞c';
  const b = issueProof({ ...base, answer }, { receipt: K.answer });

  it('counts code points, zero-based, end exclusive', async () => {
    const ok = { ...clone(b), excerpt: { start: 1, end: 4, quote: '😀b𝄞' } };
    const v = verdictOf(await verifyBundle(ok, trusted), 'proof');
    expect(v.excerpt).toEqual({ present: true, ok: true });
    expect(v.overallOk).toBe(true);
  });

  it('UTF-16 offsets, empty or out-of-range slices and wrong quotes fail the bundle', async () => {
    const bad = [
      { start: 1, end: 3, quote: '😀' }, // UTF-16 units
      { start: 2, end: 2, quote: '' },
      { start: 4, end: 6, quote: '𝄞c' },
      { start: -1, end: 1, quote: 'a' },
      { start: 0, end: 1, quote: 'b' },
      { start: 0.5, end: 1, quote: 'a' },
      'a',
      null,
    ];
    for (const excerpt of bad) {
      const v = verdictOf(await verifyBundle({ ...clone(b), excerpt }, trusted), 'proof');
      expect(v.excerpt, JSON.stringify(excerpt)).toEqual({ present: true, ok: false });
      expect(v.overallOk).toBe(false);
    }
  });
});

describe('ProofBundle: bridge attestation', () => {
  const keys = { receipt: K.answer, bridge: { primary: K.bridgePrimary, cosign: K.bridgeCosign }, random: K.random };
  const b = issueProof(base, keys);

  it('ML-DSA-87 primary and Falcon-1024 co-signature verify', async () => {
    const v = verdictOf(await verifyBundle(b, trusted), 'proof');
    expect(v.overallOk).toBe(true);
    expect(v.checks).toBe(2);
    expect(v.bridge).toMatchObject({ present: true, primaryOk: true, secondaryOk: true, cosignPresent: true });
    expect(v.bridge!.keyId).toMatch(/^[0-9a-f]{16}$/);
  });

  it('a bad co-signature fails the bridge layer but never passes alone', async () => {
    const x = clone(b) as any;
    x.attestation.cosign.sig = flipHex(x.attestation.cosign.sig, 40);
    const v = verdictOf(await verifyBundle(x, trusted), 'proof');
    expect(v.bridge!.primaryOk).toBe(true);
    expect(v.bridge!.secondaryOk).toBe(false);
    expect(v.overallOk).toBe(false);
    const y = clone(b) as any;
    y.attestation.primary.sig = flipHex(y.attestation.primary.sig, 40);
    delete y.receipt;
    const vy = verdictOf(await verifyBundle(y, trusted), 'proof');
    expect(vy.bridge!.primaryOk).toBe(false);
    expect(vy.bridge!.secondaryOk).toBe(true);
    expect(vy.overallOk).toBe(false);
  });

  it('a payload for another answer fails both checks', async () => {
    const x = { ...clone(b), answer: 'different' } as any;
    const v = verdictOf(await verifyBundle(x, trusted), 'proof');
    expect(v.bridge!.primaryOk).toBe(false);
    expect(v.bridge!.secondaryOk).toBe(false);
  });

  it('a bridge key whose key_id does not match its bytes is not used', async () => {
    const x = clone(b) as any;
    x.bridgeKeys[0].key_id = flipHex(x.bridgeKeys[0].key_id, 3);
    x.attestation.primary.key_id = x.bridgeKeys[0].key_id;
    expect(verdictOf(await verifyBundle(x, trusted), 'proof').bridge!.primaryOk).toBe(false);
  });
});

describe('ProofBundle: SLH-DSA diversity signature', () => {
  const b = issueProof(base, { receipt: K.answer, slh: K.slh });

  it('verifies from the bundle key, or the pinned key; a bad one fails the receipt layer', async () => {
    const v = verdictOf(await verifyBundle(b, trusted), 'proof');
    expect(v.receipt.diversity).toMatchObject({ present: true, ok: true });
    expect(v.overallOk).toBe(true);

    const noOwnKey = clone(b);
    delete noOwnKey.receiptKey.slh_public_key_hex;
    const pinnedSlh = {
      ...toReceiptKey(K.answer, 'svc-provenance-v1'),
      algo: 'SLH-DSA-SHA2-256f',
      public_key_hex: Array.from(K.slh.publicKey, (x) => x.toString(16).padStart(2, '0')).join(''),
    };
    expect(verdictOf(await verifyBundle(noOwnKey, trusted), 'proof').receipt.diversity!.ok).toBe(false);
    expect(verdictOf(await verifyBundle(noOwnKey, { trustedKeys: [...K.trustedKeys, pinnedSlh] }), 'proof').receipt.diversity!.ok).toBe(
      true,
    );

    const bad = clone(b) as any;
    bad.receipt.slh.sig = flipHex(bad.receipt.slh.sig, 100);
    const vb = verdictOf(await verifyBundle(bad, trusted), 'proof');
    expect(vb.receipt.sigOk).toBe(true);
    expect(vb.receipt.diversity!.ok).toBe(false);
    expect(vb.overallOk).toBe(false);
  });
});

describe('typed refusals', () => {
  it('invalid JSON text is 400, over 2 MB is 413, unknown shapes are 422', async () => {
    await expectSvcError(verifyBundle('{"kind":'), 'invalid_json', 400);
    await expectSvcError(verifyBundle(new Uint8Array([0xff, 0xfe])), 'invalid_json', 400);
    await expectSvcError(verifyBundle(`"${'a'.repeat(2 * 1024 * 1024)}"`), 'too_large', 413);
    for (const doc of [null, 1, '"x"', [], {}, { kind: 'other' }, { kind: 'svc-proof-x' }]) {
      await expectSvcError(verifyBundle(doc), 'unknown_kind', 422);
    }
  });

  it('JSON text and the parsed value give the same answer', async () => {
    expect(await verifyBundle(JSON.stringify(plain), trusted)).toEqual(await verifyBundle(plain, trusted));
    expect(await verifyBundle(new TextEncoder().encode(JSON.stringify(plain)), trusted)).toEqual(await verifyBundle(plain, trusted));
  });
});
