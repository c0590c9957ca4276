import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH } from '../../src/encoding/jcs.js';
import { nestedDeeperThan } from '../../src/lib/json.js';
import { buildRecord } from '../../src/record/build.js';
import {
  AI_ACT_SUPPORT,
  CODE_OF_PRACTICE,
  CODE_OF_PRACTICE_LOGGED,
  CODE_OF_PRACTICE_UNLOGGED,
  aiActSupport,
} from '../../src/record/table.js';
import { verifyBundle, type VerifyResponse } from '../../src/dispatch.js';

import { issueProof, issueRun, signTreeHead } from '../../src/issue/bundles.js';
import { K, clone, expectSvcError, trusted } from '../helpers.js';
import { testKeys } from '../../src/testing/keys.js';
import { asKind } from '../../src/testing/kind.js';
/** The record summary of a response, where its kind has one. */
const recordOf = (r: VerifyResponse) => ('record' in r ? r.record : undefined);

const base = { answer: 'Water boils at 100 °C at sea level.', model: 'council-v1', ts: 1_700_000_000, governance_flag: 'ok' };
const bound = issueProof({ ...base, prompt: 'At what temperature does water boil?', excerpt: { start: 0, end: 5 } }, { receipt: K.answer });
const run = issueRun(
  {
    id: 'r',
    goal: 'g',
    steps: [{ i: 0, action: 'a', output_sha256: 'aa'.repeat(32), verify: 'test', credits: 1 }],
    spentCredits: 1,
    budgetCredits: 2,
  },
  { model: 'autopilot', ts: 1_700_000_000 },
  { receipt: K.autopilot },
);
const opts = { ...trusted, generated: 1_800_000_000 };

describe('buildRecord (E1-E4)', () => {
  it('embeds the proof and a summary recomputed by verification', () => {
    const rec = buildRecord(bound, { ...opts, org: 'ACME GmbH' });
    expect(rec.schema).toBe('svc-ai-provenance-record');
    expect(rec.schema_version).toBe(1);
    expect(rec.generated).toBe(1_800_000_000);
    expect(rec.subject).toEqual({ organisation: 'ACME GmbH' });
    expect(rec.proof).toBe(bound);
    expect(rec.attested).toEqual({
      signed: true,
      signer_recognized: true,
      answer_sha256: bound.receipt.answer_sha256,
      algorithms: ['ML-DSA-87'],
      governance_flag: 'ok',
      council_grounded: true,
      signed_at: 1_700_000_000,
      receipt_key_id: bound.receipt.key_id,
      question_attested: true,
      question_binding: 'entire-input',
      quote_attested: true,
    });
    expect(rec.notes).toEqual([]);
    expect(rec.record_type).toBeUndefined();
    expect(rec.ai_act_support).toEqual([...AI_ACT_SUPPORT, ...CODE_OF_PRACTICE, CODE_OF_PRACTICE_UNLOGGED]);
  });

  it('E2: a bundle that does not verify still gives a record with signed:false and says why', () => {
    const broken = { ...clone(bound), prompt: 'Something else?' };
    const rec = buildRecord(broken, opts);
    expect(rec.attested.signed).toBe(false);
    expect(rec.attested.signer_recognized).toBeNull();
    expect(rec.attested.question_attested).toBe(false);
    expect(rec.attested.question_binding).toBeNull();
    expect(rec.attested.quote_attested).toBe(false);
    expect(rec.attested.receipt_key_id).toBe(bound.receipt.key_id); // the receipt signature itself held
    expect(rec.notes.join(' ')).toMatch(/question shown was altered/);
  });

  it('notes name the exact reason a question is not attested', () => {
    const legacy = issueProof({ ...base, prompt: 'Q', bindQuestion: false }, { receipt: K.answer });
    const rec = buildRecord(legacy, opts);
    expect(rec.attested.signed).toBe(true);
    expect(rec.attested.question_attested).toBe(false);
    expect(rec.notes.join(' ')).toMatch(/legacy receipt/);
    const noReceipt = { kind: 'svc-proof', answer: 'x', prompt: 'Q' };
    expect(buildRecord(noReceipt, opts).notes.join(' ')).toMatch(/no receipt/);
    const noQuestion = issueProof(base, { receipt: K.answer });
    expect(buildRecord(noQuestion, opts).attested.question_attested).toBeNull();
  });

  it('E3: run records carry record_type autopilot_run and the per-step methods', () => {
    const rec = buildRecord(run, opts);
    expect(rec.record_type).toBe('autopilot_run');
    expect(rec.attested.signed).toBe(true);
    expect(rec.attested.step_verification).toEqual(['test']);
    expect(rec.attested.question_attested).toBeNull();
  });

  it('refuses kinds a record is not made from, and org over 200 characters', () => {
    const h = signTreeHead({ log: 'l', tree_size: 0, root_hash: '00'.repeat(32), timestamp: 0 }, K.sth);
    expect(() => buildRecord(h, opts)).toThrowError(expect.objectContaining({ code: 'unsupported_kind', status: 422 }));
    expect(() => buildRecord(bound, { ...opts, org: 'x'.repeat(201) })).toThrowError(
      expect.objectContaining({ code: 'invalid_org', status: 422 }),
    );
    expect(buildRecord(bound, { ...opts, org: '😀'.repeat(200) }).subject?.organisation).toHaveLength(400);
  });

  it('refuses a proof nested past the depth guard, deterministically, while verification still judges it', async () => {
    const nest = (n: number): unknown => {
      let v: unknown = 1;
      for (let i = 0; i < n; i++) v = i % 2 ? [v] : { a: v };
      return v;
    };
    // The proof itself is one level; an unsigned member nested to the limit keeps it at the limit.
    const atLimit = { ...clone(bound), extra: nest(MAX_JSON_DEPTH - 1) };
    expect(buildRecord(atLimit, opts).proof).toBe(atLimit);
    for (const n of [MAX_JSON_DEPTH, 100_000]) {
      const over = { ...clone(bound), extra: nest(n) };
      expect(() => buildRecord(over, opts)).toThrowError(
        expect.objectContaining({ code: 'invalid_request', status: 422, message: 'document too deeply nested' }),
      );
      const v = await verifyBundle(over, trusted);
      expect(v.kind).toBe('svc-proof');
    }
  });

  it('property: the iterative depth measure agrees with a recursive one', () => {
    const depth = (v: unknown): number =>
      typeof v !== 'object' || v === null ? 0 : 1 + Math.max(0, ...(Array.isArray(v) ? v : Object.values(v)).map(depth));
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 8 }), fc.integer({ min: 0, max: 10 }), (v, max) => {
        expect(nestedDeeperThan(v, max)).toBe(depth(v) > max);
      }),
      { numRuns: 500 },
    );
  });

  it('the mapping never claims compliance, certification or conformity', () => {
    const rows = [AI_ACT_SUPPORT, CODE_OF_PRACTICE, CODE_OF_PRACTICE_LOGGED, CODE_OF_PRACTICE_UNLOGGED];
    const text = JSON.stringify(rows) + buildRecord(bound, opts).disclaimer;
    expect(text).not.toMatch(/\b(compliant|certified|conformant)\b/i);
    expect(buildRecord(bound, opts).disclaimer).toMatch(/not a declaration of conformity/);
  });
});

describe('the Code of Practice rows (#34 item 5)', () => {
  it('name each measure once, say which the evidence supports, and that 1.1.2 is not provided', () => {
    for (const logged of [false, true]) {
      const measures = aiActSupport(logged)
        .map((row) => /measure (1\.1\.\d)$/.exec(row.article)?.[1])
        .filter(Boolean);
      expect(measures).toEqual(['1.1.1', '1.1.2', '1.1.3']);
    }
    expect(CODE_OF_PRACTICE[1]!.supports).toMatch(/^Not provided\./);
    expect(CODE_OF_PRACTICE_UNLOGGED.supports).toMatch(/^Not shown by this proof/);
    // The ledger's limit is said where its support is: lookup is by exact text only.
    expect(CODE_OF_PRACTICE_LOGGED.limits).toMatch(/edited.*not found/);
    expect(aiActSupport(false, 1)).toEqual(AI_ACT_SUPPORT);
  });

  it('a record made with the 2025 edition keeps verifying; a table mixing editions, or any row changed, does not', async () => {
    const rec = JSON.parse(JSON.stringify(buildRecord(bound, opts)));
    const old = { ...rec, ai_act_support: aiActSupport(false, 1) };
    expect(recordOf(await verifyBundle(old, trusted))).toMatchObject({ summaryOk: true });
    expect(recordOf(await verifyBundle(rec, trusted))).toMatchObject({ summaryOk: true });
    const variants = [
      [...AI_ACT_SUPPORT, CODE_OF_PRACTICE[0]], // part of the new rows
      [...AI_ACT_SUPPORT, ...CODE_OF_PRACTICE, CODE_OF_PRACTICE_UNLOGGED].reverse(), // reordered
      rec.ai_act_support.map((r: { supports: string }, i: number) => (i === 5 ? { ...r, supports: 'Provided.' } : r)), // 1.1.2 reworded
      [],
    ];
    for (const table of variants) {
      await expectSvcError(verifyBundle({ ...rec, ai_act_support: table }, trusted), 'record_mismatch', 422);
    }
  });
});

describe('record re-verification (V4, V8)', () => {
  it('E5: a record posted unchanged verifies with summaryOk', async () => {
    const rec = buildRecord(bound, opts);
    const r = await verifyBundle(JSON.parse(JSON.stringify(rec)), trusted);
    expect(r.kind).toBe('svc-ai-provenance-record');
    expect(recordOf(r)).toEqual({ schema: 'svc-ai-provenance-record', summaryOk: true, unattested: ['generated', 'notes'] });
    expect(r.verdict.overallOk).toBe(true);
    expect(r.signerRecognized).toBe(true);
    const runRec = await verifyBundle(buildRecord(run, opts), trusted);
    expect(recordOf(runRec)?.summaryOk).toBe(true);
  });

  it('any over-claim in attested is a 422', async () => {
    const rec = buildRecord({ ...clone(bound), prompt: 'swapped' }, opts);
    for (const [field, value] of [
      ['signed', true],
      ['question_attested', true],
      ['question_binding', 'entire-input'],
      ['quote_attested', true],
      ['algorithms', ['ML-DSA-87', 'SLH-DSA-SHA2-256f']],
      ['council_grounded', false],
      ['extra', 1],
    ] as const) {
      const x = clone(rec) as any;
      x.attested[field] = value;
      await expectSvcError(verifyBundle(x, trusted), 'record_mismatch', 422);
    }
    const missing = clone(rec);
    delete missing.attested.answer_sha256;
    await expectSvcError(verifyBundle(missing, trusted), 'record_mismatch', 422);
  });

  it('signer_recognized: true over an unpinned key is originClaimUnconfirmed; over a failed proof it is 422', async () => {
    const rec = buildRecord(bound, opts);
    const r = await verifyBundle(rec, { trustedKeys: [] });
    expect(recordOf(r)).toEqual({
      schema: 'svc-ai-provenance-record',
      summaryOk: true,
      originClaimUnconfirmed: true,
      unattested: ['generated', 'notes'],
    });
    expect(r.signerRecognized).toBe(false);
    expect(r.verdict.overallOk).toBe(true);
    const failed = buildRecord({ ...clone(bound), answer: 'x' }, opts) as any;
    failed.attested.signer_recognized = true;
    await expectSvcError(verifyBundle(failed, trusted), 'record_mismatch', 422);
    const modest = clone(rec);
    modest.attested.signer_recognized = false;
    expect(recordOf(await verifyBundle(modest, trusted))?.summaryOk).toBe(true);
  });

  it('record_type, the mapping and the disclaimer cannot be reworded', async () => {
    const rec = buildRecord(bound, opts);
    const a = clone(rec);
    a.record_type = 'autopilot_run';
    await expectSvcError(verifyBundle(a, trusted), 'record_mismatch', 422);
    const b = clone(rec) as any;
    b.ai_act_support[0].supports = 'Fully compliant with Article 12.';
    await expectSvcError(verifyBundle(b, trusted), 'record_mismatch', 422);
    const c = clone(rec);
    c.disclaimer = 'Certified conformant.';
    await expectSvcError(verifyBundle(c, trusted), 'record_mismatch', 422);
    const d = clone(rec);
    d.generated = 1;
    d.notes = ['anything'];
    d.subject = { organisation: 'Other' };
    expect(recordOf(await verifyBundle(d, trusted))?.summaryOk).toBe(true);
  });

  it('a record without a proof bundle is refused', async () => {
    const rec = clone(buildRecord(bound, opts)) as any;
    rec.proof = 'x';
    await expectSvcError(verifyBundle(rec, trusted), 'unknown_kind', 422);
  });
});

describe('signatures by keys nobody pinned (round three)', () => {
  const other = testKeys('someone-else');
  const base = { answer: 'Paris is the capital of France.', model: 'm', ts: 1_767_225_600 };
  // A genuine answer, to which a stranger adds a model-plane attestation and a diversity signature.
  const genuine = issueProof(base, { receipt: K.answer });
  const strangers = issueProof(base, {
    receipt: K.answer,
    slh: other.slh,
    bridge: { primary: other.bridgePrimary, cosign: other.bridgeCosign },
    random: other.random,
  });
  const dressed = {
    ...genuine,
    attestation: strangers.attestation,
    bridgeKeys: strangers.bridgeKeys,
    receipt: strangers.receipt,
    receiptKey: strangers.receiptKey,
  };

  it('verify: the layers verify, are reported as not pinned, and origin is the receipt alone', async () => {
    const v = asKind(await verifyBundle(dressed, { ...trusted, trustedBridgeKeys: K.trustedBridgeKeys }), 'proof');
    expect(v.verdict.overallOk).toBe(true);
    expect(v.signerRecognized).toBe(true);
    expect(v.verdict.bridge).toMatchObject({ primaryOk: true, secondaryOk: true, keyRecognized: false });
    expect(v.verdict.receipt.diversity).toMatchObject({ ok: true, keyRecognized: false });
    // The service's own keys, pinned, are recognised.
    const own = issueProof(base, { receipt: K.answer, bridge: { primary: K.bridgePrimary, cosign: K.bridgeCosign }, random: K.random });
    const o = asKind(await verifyBundle(own, { ...trusted, trustedBridgeKeys: K.trustedBridgeKeys }), 'proof');
    expect(o.verdict.bridge?.keyRecognized).toBe(true);
  });

  it('record: algorithms leave out what unpinned keys signed, and notes say so', () => {
    const r = buildRecord(dressed, { ...opts, trustedBridgeKeys: K.trustedBridgeKeys });
    expect(r.attested.algorithms).toEqual(['ML-DSA-87']);
    expect(r.notes.join(' ')).toMatch(/SLH-DSA-SHA2-256f.*not pin/);
    expect(r.notes.join(' ')).toMatch(/model-plane attestation.*not pin/);
  });

  it('a record re-verifies the same whatever the verifier pins (E5, #30 row 8): more pins or fewer, never a mismatch', async () => {
    // Made where the model-plane keys are pinned: the attestation's algorithms are listed.
    const own = issueProof(base, { receipt: K.answer, bridge: { primary: K.bridgePrimary, cosign: K.bridgeCosign }, random: K.random });
    const pinned = buildRecord(own, { ...opts, trustedBridgeKeys: K.trustedBridgeKeys });
    expect(pinned.attested.algorithms).toEqual(['Falcon-1024', 'ML-DSA-87']);
    // Posted where they are not pinned: it verifies; the claim that depends on pins is reported beside.
    const elsewhere = asKind(await verifyBundle(pinned, trusted), 'record');
    expect(elsewhere.record).toMatchObject({ summaryOk: true, originClaimUnconfirmed: true });
    // Made with no pins, posted where they are: it verifies, and claims nothing unconfirmed.
    const bare = buildRecord(own, opts);
    expect(bare.attested.algorithms).toEqual(['ML-DSA-87']);
    const here = asKind(await verifyBundle(bare, { ...trusted, trustedBridgeKeys: K.trustedBridgeKeys }), 'record');
    expect(here.record.summaryOk).toBe(true);
    expect(here.record.originClaimUnconfirmed).toBeUndefined();
    // A claim beyond what verifies anywhere, or a list out of order or without the receipt's own, is a mismatch.
    for (const algorithms of [['Falcon-1024', 'ML-DSA-87', 'SLH-DSA-SHA2-256f'], ['ML-DSA-87', 'Falcon-1024'], ['Falcon-1024'], []]) {
      const forged = clone(pinned);
      forged.attested.algorithms = algorithms;
      await expectSvcError(verifyBundle(forged, { ...trusted, trustedBridgeKeys: K.trustedBridgeKeys }), 'record_mismatch', 422);
    }
    // A stranger's signatures verify but are claimed by no pin: a record listing them is unconfirmed, not refused.
    const strangerClaim = clone(buildRecord(dressed, opts));
    strangerClaim.attested.algorithms = ['Falcon-1024', 'ML-DSA-87', 'SLH-DSA-SHA2-256f'];
    const s = asKind(await verifyBundle(strangerClaim, { ...trusted, trustedBridgeKeys: K.trustedBridgeKeys }), 'record');
    expect(s.record).toMatchObject({ summaryOk: true, originClaimUnconfirmed: true });
  });

  it('record: an attestation alone, with no receipt, attests no council grounding and no signing time', () => {
    const bare = clone(strangers) as any;
    delete bare.receipt;
    delete bare.receiptKey;
    const r = buildRecord(bare, opts);
    expect(r.attested.signed).toBe(true);
    expect(r.attested.signer_recognized).toBe(false);
    expect(r.attested.council_grounded).toBeNull();
    expect(r.attested.signed_at).toBeNull();
    expect(r.attested.algorithms).toEqual([]);
  });
});

describe('buildRecord reads what verifyBundle reads', () => {
  it('JSON text and UTF-8 bytes give the same record as the parsed bundle; bad text is the same refusal', async () => {
    const fromObject = buildRecord(bound, opts);
    expect(buildRecord(JSON.stringify(bound), opts)).toEqual(fromObject);
    expect(buildRecord(new TextEncoder().encode(JSON.stringify(bound)), opts)).toEqual(fromObject);
    await expectSvcError(
      Promise.resolve().then(() => buildRecord('{"kind":', opts)),
      'invalid_json',
      400,
    );
    await expectSvcError(
      Promise.resolve().then(() => buildRecord('{"a":1,"a":2}', opts)),
      'invalid_json',
      400,
    );
  });
});
