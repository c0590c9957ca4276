// The crypto backend seam: the backend each runtime picks, and differential checks of every
// backend available here against noble.
import { describe, expect, it } from 'vitest';
import { defaultCrypto, nobleBackend, webCryptoBackend, type CryptoBackend } from '../../src/crypto/backend.js';
import { ML_DSA_87, SLH_DSA_SHA2_256F } from '../../src/crypto/ids.js';
import { verifyBatched, verifyBundle, verifyBundleSync, type VerifyResponse } from '../../src/dispatch.js';
import { issueProof } from '../../src/issue/bundles.js';
import { CheckBatch } from '../../src/verify/batch.js';
import { parseDocument } from '../../src/parse.js';
import type { SvcError } from '../../src/errors.js';
import { fuzzCorpus, mutate, prng } from '../../src/testing/arbitraries-entry.js';
import { acvpAgree, asyncNoble, mutationsAgree, signaturesInteroperate, vectorsAgree } from '../differential.js';
import { K, flipHex, trusted } from '../helpers.js';

const nodeMajor = Number((globalThis as { process?: { versions?: { node?: string } } }).process?.versions?.node?.split('.')[0] ?? 0);
const inBrowser = typeof (globalThis as { document?: unknown }).document !== 'undefined';

describe('backend selection', () => {
  // Detect, then assert: whether this runtime's subtle signs and verifies ML-DSA-87 is asked of it
  // directly (Debian's Chromium 150 has no ML-DSA, 156 has; Node has it from 24), and the backend
  // chosen must match the answer, never a version number or a browser build.
  it('the default is noble everywhere; WebCrypto is offered where the runtime has ML-DSA-87, and says which', async () => {
    const has = await subtleHasMlDsa87();
    const b = await defaultCrypto();
    const web = await webCryptoBackend();
    console.log(
      `webCryptoBackend for ML-DSA-87: ${web?.name ?? 'none'} (${inBrowser ? 'browser' : `Node ${nodeMajor}`}; subtle ML-DSA-87: ${has})`,
    );
    expect(b).toBe(nobleBackend);
    expect(web?.name ?? null).toBe(has ? 'webcrypto' : null);
  });

  it('a subtle that lacks the algorithm, fails the check, or throws is not used', async () => {
    expect(await webCryptoBackend(null)).toBeNull();
    const broken = {
      generateKey: async () => {
        throw new Error('NotSupportedError');
      },
      importKey: async () => ({}),
      verify: async () => true,
    };
    expect(await webCryptoBackend(broken)).toBeNull();
    // An engine that says yes to everything is caught by the wrong-context check.
    const liar = {
      generateKey: async () => ({ publicKey: {}, privateKey: {} }),
      exportKey: async () => new ArrayBuffer(2592),
      importKey: async () => ({}),
      sign: async () => new ArrayBuffer(4627),
      verify: async () => true,
    };
    expect(await webCryptoBackend(liar)).toBeNull();
  });
});

/** Whether this runtime's WebCrypto signs and verifies ML-DSA-87 itself: a round trip, no version sniffing. */
async function subtleHasMlDsa87(): Promise<boolean> {
  const subtle = (globalThis as { crypto?: { subtle?: SubtleCrypto } }).crypto?.subtle;
  if (!subtle) return false;
  try {
    const alg = { name: 'ML-DSA-87' } as unknown as AlgorithmIdentifier;
    const pair = (await subtle.generateKey(alg, false, ['sign', 'verify'])) as CryptoKeyPair;
    const msg = new Uint8Array([1, 2, 3]);
    const ctx = (c: number[]) => ({ name: 'ML-DSA-87', context: new Uint8Array(c) }) as AlgorithmIdentifier;
    // Every signature here has a context: an engine that refuses one (Deno 2.9) has no use here.
    const sig = await subtle.sign(ctx([7, 7]), pair.privateKey, msg);
    return (await subtle.verify(ctx([7, 7]), pair.publicKey, sig, msg)) && !(await subtle.verify(ctx([8]), pair.publicKey, sig, msg));
  } catch {
    return false;
  }
}

const backends: Promise<CryptoBackend>[] = [Promise.resolve(nobleBackend), Promise.resolve(asyncNoble), defaultCrypto()];

describe('differential: every backend agrees with noble', () => {
  for (const [i, label] of ['noble', 'noble (async: collect, batch, fold)', 'default'].entries()) {
    it(`${label}: every test vector`, async () => {
      expect(await vectorsAgree(await backends[i]!)).toBeGreaterThan(70);
    });
    it(`${label}: every applicable ACVP sigVer case`, async () => {
      expect(await acvpAgree(await backends[i]!)).toBeGreaterThan(15);
    });
    it(`${label}: mutated keys, signatures, messages and contexts`, async () => {
      await mutationsAgree(await backends[i]!, 150);
    });
    it(`${label}: signatures interoperate`, async () => {
      await signaturesInteroperate(await backends[i]!);
    });
  }
});

describe('asynchronous backends: one batch, no replay for a genuine document', () => {
  const counting = () => {
    const calls: number[] = [];
    const b: CryptoBackend = {
      name: 'counting',
      algorithms: [ML_DSA_87, SLH_DSA_SHA2_256F],
      sync: false,
      verify: async (...a) => {
        calls.push(1);
        return nobleBackend.verify(...a);
      },
    };
    return { b, calls };
  };

  it('a genuine bundle: each signature computed once, and the verdict is the synchronous one', async () => {
    const bundle = issueProof({ answer: 'One pass.', model: 'm', ts: 1 }, { receipt: K.answer, slh: K.slh });
    const { b, calls } = counting();
    const r = await verifyBundle(bundle, { trustedKeys: K.trustedKeys, crypto: b });
    expect(calls.length).toBe(2); // the receipt and its SLH-DSA diversity signature, once each
    expect(r).toEqual(verifyBundleSync(bundle, { trustedKeys: K.trustedKeys }));
  });

  it('a forged bundle: a check failed, so the folding pass reads the real answers', async () => {
    const bundle = issueProof({ answer: 'One pass.', model: 'm', ts: 1 }, { receipt: K.answer });
    const forged = { ...bundle, receipt: { ...bundle.receipt, sig: flipHex(bundle.receipt.sig as string, 20) } };
    const { b, calls } = counting();
    const r = await verifyBundle(forged, { trustedKeys: K.trustedKeys, crypto: b });
    expect(r.verdict.overallOk).toBe(false);
    expect(r).toEqual(verifyBundleSync(forged, { trustedKeys: K.trustedKeys }));
    expect(calls.length).toBe(1); // answers are kept between passes: nothing is computed twice
  });
});

describe('the check batch', () => {
  const receiptCheck = async () => {
    const bundle = issueProof({ answer: 'Batch.', model: 'm', ts: 1 }, { receipt: K.answer });
    const sig = Uint8Array.from((bundle.receipt.sig as string).match(/../g)!.map((h) => Number.parseInt(h, 16)));
    const { receiptMessage } = await import('../../src/wire/signed.js');
    return {
      pk: K.answer.publicKey,
      msg: receiptMessage(bundle.receipt as never)!,
      sig,
      ctx: new TextEncoder().encode('svc-provenance-v1'),
    };
  };

  it('collects a check as "valid", computes it in the batch, and folds the real answer by its inputs', async () => {
    const { pk, msg, sig, ctx } = await receiptCheck();
    const batch = new CheckBatch(asyncNoble);
    expect(batch.collect(ML_DSA_87, pk, msg, sig, ctx)).toBe(true);
    expect(batch.pending()).toBe(true);
    await batch.answer();
    expect(batch.pending()).toBe(false);
    expect(batch.allValid()).toBe(true);
    const bad = sig.slice();
    bad[5] = bad[5]! ^ 1;
    const batch2 = new CheckBatch(asyncNoble);
    expect(batch2.collect(ML_DSA_87, pk, msg, bad, ctx)).toBe(true);
    await batch2.answer();
    expect(batch2.allValid()).toBe(false);
    expect(batch2.fold(ML_DSA_87, pk, msg, bad, ctx)).toBe(false);
    expect(batch2.misses).toBe(0);
  });

  it('a check the fold meets uncollected is computed, not guessed, and counted', async () => {
    const { pk, msg, sig, ctx } = await receiptCheck();
    const batch = new CheckBatch(asyncNoble);
    await batch.answer();
    expect(batch.fold(ML_DSA_87, pk, msg, sig, ctx)).toBe(true);
    const bad = sig.slice();
    bad[0] = bad[0]! ^ 1;
    expect(batch.fold(ML_DSA_87, pk, msg, bad, ctx)).toBe(false);
    expect(batch.misses).toBe(2);
  });

  it('mutated documents of every kind: the fold never misses, and the verdict is the synchronous one', async () => {
    const corpus = fuzzCorpus(11);
    const r = prng(11);
    let folded = 0;
    for (let i = 0; i < 120; i++) {
      const { kind, doc } = corpus[i % corpus.length]!;
      const m = mutate(doc, r, kind);
      const outcome = async (f: () => Promise<VerifyResponse>) =>
        f().then(
          (res) => ({ res }),
          (e: SvcError) => ({ code: e.code }),
        );
      let misses = 0;
      const got = await outcome(async () => {
        const b = await verifyBatched(parseDocument(m.input), trusted, asyncNoble);
        misses = b.misses;
        return b.response;
      });
      const want = await outcome(async () => verifyBundleSync(m.input, trusted));
      expect(got, m.description).toEqual(want);
      expect(misses, m.description).toBe(0);
      if ('res' in got && !got.res.verdict.overallOk) folded++;
    }
    // Failing verdicts are the ones that take the folding pass: the property is not empty.
    expect(folded).toBeGreaterThan(20);
  }, 120_000);
});
