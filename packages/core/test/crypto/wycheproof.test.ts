// Wycheproof (C2SP/wycheproof @ dac1dd4, test-vectors/external/wycheproof) read by the core's own
// defensive wrappers on every backend this runtime has: ML-DSA-87 through verifyMlDsa87 on noble and
// on the default backend (WebCrypto on Node 24 and Chromium 156, noble elsewhere), ML-DSA-44/65 and
// Ed25519 through envelopeVerify (noble, and WebCrypto Ed25519 where the runtime has it), ECDSA
// P-256 through scittVerify (noble, and WebCrypto ECDSA). Every case must give Wycheproof's verdict:
// they guard the next upgrade of noble, of a browser, or of the CBOR and COSE code around them.
import { ml_dsa44, ml_dsa65 } from '@noble/post-quantum/ml-dsa.js';
import { describe, expect, it } from 'vitest';
import { defaultCrypto, nobleBackend } from '../../src/crypto/backend.js';
import { ML_DSA_87 } from '../../src/crypto/ids.js';
import { fromHex } from '../../src/encoding/bytes.js';
import { envelopeVerify } from '../../src/envelope/signers.js';
import { scittVerify } from '../../src/scitt/keys.js';
import { checkWith } from '../differential.js';
import { wycheproofEd25519, wycheproofMlDsa44, wycheproofMlDsa65, wycheproofMlDsa87, wycheproofP256 } from '../vectors-fs.js';

type Case = {
  tcId: number;
  msg: string;
  sig: string;
  ctx?: string;
  comment?: string;
  result: 'valid' | 'invalid' | 'acceptable';
  flags: string[];
};
type Group = { publicKey: string | { pk?: string; uncompressed?: string }; tests: Case[] };
const hex = (h: string) => fromHex(h) ?? new Uint8Array(0);
const groups = (file: unknown) => (file as { testGroups: Group[] }).testGroups;
const cases = (file: unknown) => groups(file).flatMap((g) => g.tests.map((t) => ({ g, t })));
const keyOf = (g: Group) => hex(typeof g.publicKey === 'string' ? g.publicKey : (g.publicKey.pk ?? g.publicKey.uncompressed ?? ''));

const subtle = (globalThis as { crypto?: { subtle?: SubtleCrypto } }).crypto?.subtle;
/** Whether this runtime's WebCrypto imports and uses a key of `alg` (detected, never assumed). */
async function webHas(alg: AlgorithmIdentifier | EcKeyImportParams, raw: Uint8Array): Promise<boolean> {
  try {
    await subtle!.importKey('raw', raw as BufferSource, alg, false, ['verify']);
    return true;
  } catch {
    return false;
  }
}

describe('Wycheproof', () => {
  it('the files are here, with the counts their headers give', () => {
    for (const [file, alg, n] of [
      [wycheproofMlDsa44, 'ML-DSA-44', 180],
      [wycheproofMlDsa65, 'ML-DSA-65', 210],
      [wycheproofMlDsa87, 'ML-DSA-87', 241],
      [wycheproofEd25519, 'EDDSA', 150],
      [wycheproofP256, 'ECDSA', 262],
    ] as const) {
      expect((file as { algorithm: string }).algorithm).toBe(alg);
      expect(cases(file).length).toBeGreaterThanOrEqual(n);
      expect(cases(file).length).toBe((file as { numberOfTests: number }).numberOfTests);
    }
  });

  for (const [label, backend] of [
    ['noble', Promise.resolve(nobleBackend)],
    ['the default backend', defaultCrypto()],
  ] as const)
    it(`ML-DSA-87 verify, every case, on ${label}`, async () => {
      const b = await backend;
      let n = 0;
      for (const { g, t } of cases(wycheproofMlDsa87)) {
        const got = await checkWith(b, ML_DSA_87, keyOf(g), hex(t.msg), hex(t.sig), hex(t.ctx ?? ''));
        expect(got, `${b.name} tcId ${t.tcId} ${t.flags.join(',')}`).toBe(t.result === 'valid');
        n++;
      }
      expect(n).toBe(241);
    }, 120_000);

  it('ML-DSA-44 and ML-DSA-65 verify, every case: envelopeVerify for the empty context, noble with a context', () => {
    for (const [file, alg, noble] of [
      [wycheproofMlDsa44, 'ML-DSA-44', ml_dsa44],
      [wycheproofMlDsa65, 'ML-DSA-65', ml_dsa65],
    ] as const) {
      for (const { g, t } of cases(file)) {
        const want = t.result === 'valid';
        const [pk, msg, sig, ctx] = [keyOf(g), hex(t.msg), hex(t.sig), hex(t.ctx ?? '')];
        if (ctx.length === 0 && t.ctx === undefined) expect(envelopeVerify(alg, pk, msg, sig), `${alg} tcId ${t.tcId}`).toBe(want);
        let direct: boolean;
        try {
          direct = noble.verify(sig, msg, pk, { context: ctx }) === true;
        } catch {
          direct = false;
        }
        expect(direct, `${alg} tcId ${t.tcId} (noble)`).toBe(want);
      }
    }
  });

  it('Ed25519, every case: envelopeVerify and scittVerify (noble), and WebCrypto where the runtime has Ed25519', async () => {
    const all = cases(wycheproofEd25519);
    const web = subtle ? await webHas({ name: 'Ed25519' }, keyOf(all[0]!.g)) : false;
    for (const { g, t } of all) {
      const want = t.result === 'valid';
      const [pk, msg, sig] = [keyOf(g), hex(t.msg), hex(t.sig)];
      expect(envelopeVerify('Ed25519', pk, msg, sig), `tcId ${t.tcId}`).toBe(want);
      expect(scittVerify('Ed25519', pk, msg, sig), `tcId ${t.tcId}`).toBe(want);
      if (web) {
        let got: boolean;
        try {
          const key = await subtle!.importKey('raw', pk as BufferSource, { name: 'Ed25519' }, false, ['verify']);
          got = await subtle!.verify({ name: 'Ed25519' }, key, sig as BufferSource, msg as BufferSource);
        } catch {
          got = false;
        }
        expect(got, `WebCrypto tcId ${t.tcId}`).toBe(want);
      }
    }
    console.log(`Wycheproof Ed25519: ${all.length} cases on noble${web ? ' and WebCrypto' : ' (this runtime has no WebCrypto Ed25519)'}`);
  });

  it('ECDSA P-256 / SHA-256 (r||s), every case: scittVerify (noble, high S accepted as ECDSA allows), and WebCrypto', async () => {
    const all = cases(wycheproofP256);
    const web = subtle ? await webHas({ name: 'ECDSA', namedCurve: 'P-256' }, keyOf(all[0]!.g)) : false;
    for (const { g, t } of all) {
      const want = t.result === 'valid';
      const [pk, msg, sig] = [keyOf(g), hex(t.msg), hex(t.sig)];
      expect(scittVerify('ES256', pk, msg, sig), `tcId ${t.tcId} ${t.comment}`).toBe(want);
      if (web) {
        let got: boolean;
        try {
          const key = await subtle!.importKey('raw', pk as BufferSource, { name: 'ECDSA', namedCurve: 'P-256' }, false, ['verify']);
          got = await subtle!.verify({ name: 'ECDSA', hash: 'SHA-256' }, key, sig as BufferSource, msg as BufferSource);
        } catch {
          got = false;
        }
        expect(got, `WebCrypto tcId ${t.tcId}`).toBe(want);
      }
    }
  });
});
