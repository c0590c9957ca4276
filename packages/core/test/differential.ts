// Differential checks shared by every runtime's test run: each crypto backend must give the same
// boolean as noble on every test vector, every applicable ACVP sigVer case and every mutation.
// A backend that throws where noble returns false must come out as false, never as an error.
import { expect } from 'vitest';
import fc from 'fast-check';
import { ML_DSA_87, SLH_DSA_SHA2_256F, keygen, sign, verifyMlDsa87, verifySlhDsa } from '../src/crypto/algorithms.js';
import { nobleBackend, type BackendAlgorithm, type CryptoBackend } from '../src/crypto/backend.js';
import { CheckBatch } from '../src/verify/batch.js';
import { verifyBatched, verifyBundle } from '../src/dispatch.js';
import { parseDocument } from '../src/parse.js';
import { SvcError } from '../src/errors.js';
import { mldsa, ourVectors, slh } from './vectors-fs.js';
import { logPolicy } from '../src/tlog/index.js';
import { envelopeChecker } from '../src/envelope/receipt.js';

export const hex = (s: string) => {
  const out = new Uint8Array(s.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(s.slice(2 * i, 2 * i + 2), 16);
  return out;
};
const truthy = (x: unknown) => x === true || x === 'True' || x === 'true';

/** noble behind an asynchronous face: runs the collect, batch and fold path on any runtime. */
export const asyncNoble: CryptoBackend = {
  name: 'noble (async)',
  algorithms: [ML_DSA_87, SLH_DSA_SHA2_256F],
  sync: false,
  verify: async (...a) => nobleBackend.verify(...a),
};

/** One check through the core's defensive wrapper, computed by `backend`. */
export async function checkWith(
  backend: CryptoBackend,
  alg: BackendAlgorithm,
  pk: Uint8Array,
  msg: Uint8Array,
  sig: Uint8Array,
  ctx: Uint8Array,
): Promise<boolean> {
  const batch = new CheckBatch(backend);
  const run = (compute: typeof batch.fold) => (alg === ML_DSA_87 ? verifyMlDsa87 : verifySlhDsa)(pk, msg, sig, ctx, compute);
  run(batch.collect);
  await batch.answer();
  const got = run(batch.fold);
  expect(batch.misses).toBe(0);
  return got;
}

/** The backend called directly with raw input, any throw or rejection mapped to false. */
async function raw(
  backend: CryptoBackend,
  alg: BackendAlgorithm,
  pk: Uint8Array,
  msg: Uint8Array,
  sig: Uint8Array,
  ctx: Uint8Array,
): Promise<boolean> {
  try {
    return (await backend.verify(alg, pk, msg, sig, ctx)) === true;
  } catch {
    return false;
  }
}

export async function vectorsAgree(backend: CryptoBackend): Promise<number> {
  let n = 0;
  for (const data of Object.values(ourVectors) as { cases: any[] }[]) {
    for (const c of data.cases) {
      let got: unknown;
      const options = {
        trustedKeys: c.trustedKeys,
        trustedBridgeKeys: c.trustedBridgeKeys,
        trustedEnvelopeKeys: c.trustedEnvelopeKeys,
        ...(c.logPolicy ? { logPolicy: logPolicy(c.logPolicy) } : {}),
        ...(c.checkEnvelopes ? { envelopes: envelopeChecker } : {}),
        service: c.service,
        crypto: backend,
      };
      try {
        got = { status: 200, response: await verifyBundle(c.inputText ?? c.input, options) };
        // The folding pass never asks for a check the collecting pass did not meet.
        if (!backend.sync) expect((await verifyBatched(parseDocument(c.inputText ?? c.input), options, backend)).misses).toBe(0);
      } catch (e) {
        expect(e).toBeInstanceOf(SvcError);
        got = { status: (e as SvcError).status, code: (e as SvcError).code };
      }
      expect(got, `${backend.name}: ${c.description}`).toEqual(c.expected);
      n++;
    }
  }
  return n;
}

export async function acvpAgree(backend: CryptoBackend): Promise<number> {
  let n = 0;
  const expected = new Map<string, boolean>();
  for (const g of mldsa.expectedResults.testGroups) for (const t of g.tests) expected.set(String(t.tcId), truthy(t.testPassed));
  for (const g of mldsa.prompt.testGroups) {
    if (g.parameterSet !== 'ML-DSA-87' || g.signatureInterface !== 'external') continue;
    for (const t of g.tests) {
      const args = [hex(t.pk), hex(t.message), hex(t.signature), hex(t.context ?? '')] as const;
      const want = g.preHash === 'pure' ? expected.get(String(t.tcId))! : false;
      expect(await checkWith(backend, ML_DSA_87, ...args), `${backend.name} ML-DSA tcId ${t.tcId}`).toBe(want);
      expect(await checkWith(backend, ML_DSA_87, ...args)).toBe(await checkWith(nobleBackend, ML_DSA_87, ...args));
      n++;
    }
  }
  const sets = (slh as any).sets as any[];
  for (const t of [...sets[2].tests, ...sets[3].tests].filter((x: any) => x.preHash === 'pure' && x.signatureInterface === 'external')) {
    expect(
      await checkWith(backend, SLH_DSA_SHA2_256F, hex(t.pk), hex(t.message), hex(t.signature), hex(t.context ?? '')),
      `${backend.name} SLH ${t.tcId}`,
    ).toBe(truthy(t.testPassed));
    n++;
  }
  return n;
}

const base = (() => {
  const kp = keygen(ML_DSA_87, new Uint8Array(32).fill(9));
  const msg = new Uint8Array([104, 105]);
  const ctx = new Uint8Array([1, 2, 3]);
  return { kp, msg, ctx, sig: sign(kp, msg, ctx) };
})();

const mutation = fc.oneof(
  fc.record({ what: fc.constant('sig-truncate' as const), n: fc.integer({ min: 0, max: 4626 }) }),
  fc.record({ what: fc.constant('sig-extend' as const), n: fc.integer({ min: 1, max: 64 }) }),
  fc.record({ what: fc.constant('sig-flip' as const), n: fc.integer({ min: 0, max: 4626 * 8 - 1 }) }),
  fc.record({ what: fc.constant('pk-length' as const), n: fc.integer({ min: 0, max: 2700 }) }),
  fc.record({ what: fc.constant('pk-flip' as const), n: fc.integer({ min: 0, max: 2591 * 8 }) }),
  fc.record({ what: fc.constant('msg-flip' as const), n: fc.integer({ min: 0, max: 15 }) }),
  fc.record({ what: fc.constant('msg-empty' as const), n: fc.constant(0) }),
  fc.record({ what: fc.constant('ctx' as const), n: fc.constantFrom(0, 1, 3, 255, 256, 300) }),
  fc.record({ what: fc.constant('none' as const), n: fc.constant(0) }),
);

function applyMutation(m: { what: string; n: number }) {
  let { sig, msg, ctx } = base;
  let pk = base.kp.publicKey;
  const flip = (a: Uint8Array, bit: number) => {
    const c = a.slice();
    c[bit >> 3] = c[bit >> 3]! ^ (1 << (bit & 7));
    return c;
  };
  if (m.what === 'sig-truncate') sig = sig.slice(0, m.n);
  if (m.what === 'sig-extend') sig = new Uint8Array([...sig, ...new Uint8Array(m.n)]);
  if (m.what === 'sig-flip') sig = flip(sig, m.n);
  if (m.what === 'pk-length') pk = m.n <= 2592 ? pk.slice(0, m.n) : new Uint8Array([...pk, ...new Uint8Array(m.n - 2592)]);
  if (m.what === 'pk-flip') pk = flip(pk, m.n);
  if (m.what === 'msg-flip') msg = flip(msg, m.n);
  if (m.what === 'msg-empty') msg = new Uint8Array(0);
  if (m.what === 'ctx') ctx = new Uint8Array(m.n).fill(3).map((x, i) => (i < 3 ? base.ctx[i]! : x));
  return { pk, msg, sig, ctx };
}

export async function mutationsAgree(backend: CryptoBackend, runs = 200): Promise<void> {
  // The unmutated triple must verify, or the property would be empty.
  expect(await checkWith(backend, ML_DSA_87, base.kp.publicKey, base.msg, base.sig, base.ctx)).toBe(true);
  await fc.assert(
    fc.asyncProperty(mutation, async (m) => {
      const { pk, msg, sig, ctx } = applyMutation(m);
      const want = await checkWith(nobleBackend, ML_DSA_87, pk, msg, sig, ctx);
      expect(await checkWith(backend, ML_DSA_87, pk, msg, sig, ctx), JSON.stringify(m)).toBe(want);
      // Called raw, past the core's checks, a backend still answers a boolean (throws become false).
      expect(await raw(backend, ML_DSA_87, pk, msg, sig, ctx), `raw ${JSON.stringify(m)}`).toBe(
        await raw(nobleBackend, ML_DSA_87, pk, msg, sig, ctx),
      );
    }),
    { numRuns: runs },
  );
}

/** Signatures made by `backend` verify under noble, and noble's under `backend`. */
export async function signaturesInteroperate(backend: CryptoBackend): Promise<void> {
  if (!backend.sign || !backend.sync) return;
  for (const alg of backend.algorithms) {
    const kp = keygen(alg, new Uint8Array(alg === ML_DSA_87 ? 32 : 96).fill(5));
    const msg = new Uint8Array([1, 2, 3, 4]);
    const ctx = new Uint8Array([9, 9]);
    const mine = sign(kp, msg, ctx, undefined, backend);
    const theirs = sign(kp, msg, ctx);
    expect(await checkWith(nobleBackend, alg, kp.publicKey, msg, mine, ctx), `${backend.name} ${alg} signature under noble`).toBe(true);
    expect(await checkWith(backend, alg, kp.publicKey, msg, theirs, ctx), `noble ${alg} signature under ${backend.name}`).toBe(true);
  }
}
