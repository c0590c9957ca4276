// Ed25519 and ECDSA (P-256, P-384) by OpenSSL through node:crypto, for the SCITT registration path:
// about 20x noble's Ed25519 on this machine, and every registration checks one signature. Keys are
// imported once (JWK form, which Node 20 reads) and kept; any failure is left to noble (undefined).
import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import { toBase64Url, toHex } from '@svc/core/primitives';
import type { ClassicalVerify } from '@svc/core/scitt';

const keys = new Map<string, KeyObject | null>();

function keyOf(alg: 'Ed25519' | 'ES256' | 'ES384', pk: Uint8Array): KeyObject | null {
  const id = `${alg}:${toHex(pk)}`;
  if (keys.has(id)) return keys.get(id)!;
  let k: KeyObject | null = null;
  try {
    if (alg === 'Ed25519') k = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: toBase64Url(pk) }, format: 'jwk' });
    else {
      const w = (pk.length - 1) / 2;
      const jwk = {
        kty: 'EC',
        crv: alg === 'ES256' ? 'P-256' : 'P-384',
        x: toBase64Url(pk.subarray(1, 1 + w)),
        y: toBase64Url(pk.subarray(1 + w)),
      };
      k = createPublicKey({ key: jwk, format: 'jwk' });
    }
  } catch {
    k = null;
  }
  if (keys.size >= 256) keys.delete(keys.keys().next().value!);
  keys.set(id, k);
  return k;
}

export const opensslClassical: ClassicalVerify = (alg, pk, message, signature) => {
  const key = keyOf(alg, pk);
  if (!key) return undefined;
  try {
    if (alg === 'Ed25519') return signature.length === 64 && verify(null, message, key, signature);
    const width = alg === 'ES256' ? 64 : 96;
    if (signature.length !== width) return false;
    return verify(alg === 'ES256' ? 'sha256' : 'sha384', message, { key, dsaEncoding: 'ieee-p1363' }, signature);
  } catch {
    return undefined;
  }
};
