// Registration checks Ed25519 and ECDSA statements with OpenSSL (crypto/classical.ts) where the core
// would use noble: the two must agree on every signature, valid or changed, or a statement the
// service registered could fail for a verifier using the core alone.
import { generateKeyPairSync, sign } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fromBase64Url, sha256, utf8 } from '@svc/core/primitives';
import { scittVerify } from '@svc/core/scitt';
import { opensslClassical } from '../../src/crypto/classical.js';

const pair = (alg: 'Ed25519' | 'ES256' | 'ES384') => {
  const { publicKey, privateKey } =
    alg === 'Ed25519' ? generateKeyPairSync('ed25519') : generateKeyPairSync('ec', { namedCurve: alg === 'ES256' ? 'P-256' : 'P-384' });
  const jwk = publicKey.export({ format: 'jwk' });
  const pk = alg === 'Ed25519' ? fromBase64Url(jwk.x)! : new Uint8Array([4, ...fromBase64Url(jwk.x)!, ...fromBase64Url(jwk.y)!]);
  const signIt = (m: Uint8Array) =>
    new Uint8Array(
      alg === 'Ed25519'
        ? sign(null, m, privateKey)
        : sign(alg === 'ES256' ? 'sha256' : 'sha384', m, { key: privateKey, dsaEncoding: 'ieee-p1363' }),
    );
  return { pk, signIt };
};

describe('OpenSSL and noble agree on classical statement signatures', () => {
  it.each(['Ed25519', 'ES256', 'ES384'] as const)('%s: valid, changed message, changed signature, wrong key', (alg) => {
    const a = pair(alg);
    const b = pair(alg);
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 0, maxLength: 200 }), fc.nat(), fc.integer({ min: 1, max: 255 }), (m, at, flip) => {
        const sig = a.signIt(m);
        const cases: [Uint8Array, Uint8Array, Uint8Array][] = [[a.pk, m, sig]];
        const bad = sig.slice();
        bad[at % bad.length]! ^= flip;
        cases.push([a.pk, m, bad], [b.pk, m, sig], [a.pk, sha256(utf8('other')), sig]);
        for (const [pk, msg, s] of cases) expect(opensslClassical(alg, pk, msg, s)).toBe(scittVerify(alg, pk, msg, s));
        expect(opensslClassical(alg, a.pk, m, sig)).toBe(true);
      }),
      { numRuns: 40 },
    );
  });

  it('bad lengths and an off-curve point: false or left to noble, never a throw', () => {
    const ec = pair('ES256');
    expect(opensslClassical('ES256', ec.pk, utf8('m'), new Uint8Array(63))).toBe(false);
    const offCurve = ec.pk.slice();
    offCurve[64]! ^= 1;
    expect([undefined, false]).toContain(opensslClassical('ES256', offCurve, utf8('m'), ec.signIt(utf8('m'))));
    expect(opensslClassical('Ed25519', pair('Ed25519').pk, utf8('m'), new Uint8Array(10))).toBe(false);
  });
});
