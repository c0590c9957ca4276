// VerifyResponse is a union on `kind`: comparing it narrows the verdict, with no cast.
import { describe, expect, expectTypeOf, it } from 'vitest';
import { verifyBundle, type VerifyResponse } from '../src/dispatch.js';
import type { ProofVerdict } from '../src/verify/proof.js';
import type { TranscriptVerdict } from '../src/verify/transcript.js';
import type { RunVerdict } from '../src/verify/run.js';
import { buildRecord } from '../src/record/build.js';
import { issueProof, issueTranscript } from '../src/issue/bundles.js';
import { K, trusted } from './helpers.js';
import type { BridgeKey } from '../src/wire/keys.js';
import { asKind } from '../src/testing/kind.js';
import { namesFor } from '../src/names.js';

describe('VerifyResponse narrows on kind', () => {
  it('each kind gives its own verdict type, and only records carry record', async () => {
    const proof = issueProof({ answer: 'a', model: 'm', ts: 1 }, { receipt: K.answer });
    const res: VerifyResponse = await verifyBundle(proof, trusted);
    if (res.kind === 'svc-proof') {
      expectTypeOf(res.verdict).toEqualTypeOf<ProofVerdict>();
      expect(res.verdict.receipt.sigOk).toBe(true);
    } else throw new Error(`expected a proof, got ${res.kind}`);
    const t = await verifyBundle(issueTranscript([proof], { title: 'chat' }), trusted);
    if (t.kind === 'svc-transcript') {
      expectTypeOf(t.verdict).toEqualTypeOf<TranscriptVerdict>();
      expect(t.verdict.turns).toHaveLength(1);
    } else throw new Error(`expected a transcript, got ${t.kind}`);
    const r = await verifyBundle(buildRecord(proof, { ...trusted, generated: 1 }), trusted);
    if (r.kind === 'svc-ai-provenance-record') {
      expectTypeOf(r.verdict).toEqualTypeOf<ProofVerdict | RunVerdict>();
      expect(r.record.summaryOk).toBe(true);
    } else throw new Error(`expected a record, got ${r.kind}`);
    // @ts-expect-error: `record` exists only on records, so reading it needs the kind first.
    expect(res.record).toBeUndefined();
  });
});

describe('asKind (@svc/core/testing): a verify answer as the kind a test expects', () => {
  it('types the verdict and the record for the kind asked, and throws naming the kind it got for another', async () => {
    const proof = issueProof({ answer: 'a', model: 'm', ts: 1 }, { receipt: K.answer });
    const res = asKind(await verifyBundle(proof, trusted), 'proof');
    expectTypeOf(res.verdict).toEqualTypeOf<ProofVerdict>();
    expect(res.verdict.receipt.sigOk).toBe(true);
    const rec = asKind(await verifyBundle(buildRecord(proof, { ...trusted, generated: 1 }), trusted), 'record');
    expectTypeOf(rec.record.summaryOk).toEqualTypeOf<true>();
    expect(rec.record.summaryOk).toBe(true);
    const answer = await verifyBundle(proof, trusted);
    expect(() => asKind(answer, 'record')).toThrow(new TypeError('expected a svc-ai-provenance-record answer, got svc-proof'));
    expect(() => asKind(answer, 'transcript')).toThrow(/got svc-proof/);
    // Per deployment: another service's proof is its own kind name, read the same.
    const acmeProof = issueProof({ answer: 'a', model: 'm', ts: 1 }, { receipt: K.answer }, { service: 'acme' });
    const acme = await verifyBundle(acmeProof, { ...trusted, service: 'acme' });
    expect(acme.kind).toBe(namesFor('acme').kinds.proof);
    expect(asKind(acme, 'proof').verdict.overallOk).toBe(true);
  });
});

describe('options are typed as the documents they take', () => {
  it('trustedBridgeKeys takes the published key shape; anything else is skipped at run time, never trusted', async () => {
    type Keys = NonNullable<Parameters<typeof verifyBundle>[1]>['trustedBridgeKeys'];
    expectTypeOf<Keys>().toEqualTypeOf<readonly BridgeKey[] | undefined>();
    const proof = issueProof({ answer: 'a', model: 'm', ts: 1 }, { receipt: K.answer });
    // @ts-expect-error: a number is not a published key.
    const odd = await verifyBundle(proof, { ...trusted, trustedBridgeKeys: [7] });
    expect(odd.verdict.overallOk).toBe(true);
  });
});
