// RFC 9964's own examples, read by our code: keys from the all-zero seed, their JWK and COSE key
// thumbprints, and each example JWS and COSE_Sign1 verified (and failing for one changed byte).
import { ml_dsa44, ml_dsa65, ml_dsa87 } from '@noble/post-quantum/ml-dsa.js';
import { describe, expect, it } from 'vitest';
import { fromBase64Url, fromHex, toHex, utf8 } from '@svc/core/primitives';
import {
  coseKeyThumbprint,
  envelopeVerify,
  jwkThumbprint,
  readCoseKey,
  cborDecode,
  sigStructure,
  verifyCose1,
  readCose1,
  type EnvelopeAlg,
} from '@svc/core/envelope';
import { rfc9964 } from '../vectors-fs.js';

const ALGS = [
  ['ML-DSA-44', ml_dsa44],
  ['ML-DSA-65', ml_dsa65],
  ['ML-DSA-87', ml_dsa87],
] as const;

describe("RFC 9964's examples", () => {
  it('are all here', () => {
    expect(Object.keys(rfc9964).sort()).toEqual(
      ALGS.flatMap(([a]) => [`${a.replaceAll('-', '_')}.cose`, `${a.replaceAll('-', '_')}.jose`]).sort(),
    );
  });

  for (const [alg, noble] of ALGS) {
    const name = alg.replaceAll('-', '_');
    it(`${alg}: the key from the seed, its JWK thumbprint, and the example JWS`, () => {
      const ex = rfc9964[`${name}.jose`] as { priv: string; jwk: Record<string, string>; jws: string; raw_public_key: string };
      const pub = noble.keygen(fromHex(ex.priv, 32)!).publicKey;
      expect(toHex(pub)).toBe(ex.raw_public_key);
      expect(toHex(fromBase64Url(ex.jwk.pub)!)).toBe(ex.raw_public_key);
      expect(jwkThumbprint(alg as EnvelopeAlg, pub)).toBe(ex.jwk.kid);
      const [h, p, s] = ex.jws.split('.');
      const input = utf8(`${h}.${p}`);
      const sig = fromBase64Url(s)!;
      expect(envelopeVerify(alg as EnvelopeAlg, pub, input, sig)).toBe(true);
      const changed = input.slice();
      changed[changed.length - 1]! ^= 1;
      expect(envelopeVerify(alg as EnvelopeAlg, pub, changed, sig)).toBe(false);
    });

    it(`${alg}: the COSE_Key's thumbprint is its kid, and the example COSE_Sign1 verifies`, () => {
      const ex = rfc9964[`${name}.cose`] as { key: string; sign1: string; raw_to_be_signed: string; raw_public_key: string };
      const full = cborDecode(fromHex(ex.key)!) as Map<number, unknown>;
      // The example is the private key: as a trusted key it is refused (a public key never has priv).
      expect(full.get(-2)).toEqual(new Uint8Array(32));
      expect(readCoseKey(full)).toBeNull();
      const pub = new Map(full);
      pub.delete(-2);
      const key = readCoseKey(pub);
      expect(key).not.toBeNull();
      expect(key!.alg).toBe(alg);
      expect(toHex(key!.publicKey)).toBe(ex.raw_public_key);
      expect(toHex(coseKeyThumbprint(alg as EnvelopeAlg, key!.publicKey))).toBe(toHex(key!.kid!));
      const bytes = fromHex(ex.sign1)!;
      const parts = readCose1(bytes);
      expect(toHex(sigStructure(parts.protectedBytes, parts.payload!))).toBe(ex.raw_to_be_signed);
      const keys = [pub];
      expect(verifyCose1(bytes, keys, { typ: null })).toMatchObject({ ok: true, signatures: [{ alg, ok: true }] });
      const bad = bytes.slice();
      bad[bad.length - 10]! ^= 1;
      expect(verifyCose1(bad, keys, { typ: null })).toMatchObject({ ok: false, error: 'bad_signature' });
    });
  }
});
