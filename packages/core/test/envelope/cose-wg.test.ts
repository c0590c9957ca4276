// cose-wg/Examples (@ 53c9d63, test-vectors/external/cose-wg, public domain): the working group's
// COSE_Sign1 examples read by the core's COSE primitives. readCose1 parses them strictly, the
// Sig_structure we build is the example's ToBeSign byte for byte, scittVerify checks Ed25519 and
// ES256 / ES384 with the example's key, and each sign1 "fail" test never verifies. Where the
// examples go past what this project accepts, the refusal is the documented one: alg only from the
// protected header (sign-pass-01), tag 18 required (sign-pass-03), no external AAD (sign-pass-02),
// Ed448 and ES512 not accepted, and an unprotected header refused by verifyCose1 (our envelopes).
import { describe, expect, it } from 'vitest';
import { fromBase64Url, fromHex, toHex } from '../../src/encoding/bytes.js';
import { COSE_HEADER, readCose1, sigStructure, verifyCose1 } from '../../src/envelope/cose.js';
import { scittAlgOfCose, scittVerify } from '../../src/scitt/keys.js';
import { coseWg, type CoseWgExample } from '../vectors-fs.js';

function publicKey(k: Record<string, string>): Uint8Array | null {
  if (k.kty === 'OKP') return fromHex(k.x_hex ?? '') ?? null;
  const x = fromBase64Url(k.x) ?? new Uint8Array(0);
  const y = fromBase64Url(k.y) ?? new Uint8Array(0);
  return new Uint8Array([4, ...x, ...y]);
}

/** What our primitives say of one example: parsed, the to-be-signed bytes, and the verdict. */
function judge(ex: CoseWgExample): { parsed: boolean; tbs?: string; ok: boolean } {
  const bytes = fromHex(ex.output.cbor.toLowerCase())!;
  let c: ReturnType<typeof readCose1>;
  try {
    c = readCose1(bytes);
  } catch {
    return { parsed: false, ok: false };
  }
  const tbs = sigStructure(c.protectedBytes, c.payload ?? new Uint8Array(0));
  const alg = scittAlgOfCose(c.header.get(COSE_HEADER.alg));
  const pk = publicKey(ex.input.sign0.key);
  const ok = !!alg && !!pk && !!c.payload && scittVerify(alg, pk, tbs, c.signature);
  return { parsed: true, tbs: toHex(tbs), ok };
}

describe('cose-wg/Examples COSE_Sign1', () => {
  it('are all here', () => {
    expect(Object.keys(coseWg).length).toBe(13);
  });

  it.each(['ecdsa-sig-01', 'ecdsa-sig-02', 'eddsa-sig-01'])(
    '%s: parsed, our Sig_structure is its ToBeSign, and the signature verifies',
    (name) => {
      const ex = coseWg[name]!;
      const v = judge(ex);
      expect(v).toMatchObject({ parsed: true, ok: true });
      if (ex.intermediates?.ToBeSign_hex) expect(v.tbs).toBe(ex.intermediates.ToBeSign_hex.toLowerCase());
      // One changed byte of the signature and it fails.
      const bytes = fromHex(ex.output.cbor.toLowerCase())!;
      bytes[bytes.length - 3]! ^= 1;
      expect(judge({ ...ex, output: { cbor: toHex(bytes) } }).ok).toBe(false);
      // verifyCose1 is the reader of our envelopes: an unprotected kid is refused there, as documented.
      expect(verifyCose1(fromHex(ex.output.cbor.toLowerCase())!, [], { typ: null })).toMatchObject({ ok: false, error: 'malformed' });
    },
  );

  it('eddsa-sig-02 (Ed448): parsed, not an accepted algorithm', () => {
    expect(judge(coseWg['eddsa-sig-02']!)).toMatchObject({ parsed: true, ok: false });
  });

  it.each(['sign-fail-01', 'sign-fail-02', 'sign-fail-03', 'sign-fail-04', 'sign-fail-06', 'sign-fail-07'])(
    '%s: never verifies',
    (name) => {
      const ex = coseWg[name]!;
      expect(ex.fail).toBe(true);
      expect(judge(ex).ok).toBe(false);
    },
  );

  it("sign-pass-01/02/03: refused by this project's documented rules (alg unprotected, external AAD, untagged)", () => {
    expect(judge(coseWg['sign-pass-01']!)).toMatchObject({ parsed: true, ok: false });
    expect(judge(coseWg['sign-pass-02']!)).toMatchObject({ parsed: true, ok: false });
    expect(judge(coseWg['sign-pass-03']!)).toMatchObject({ parsed: false });
  });
});
