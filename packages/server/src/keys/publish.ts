// What the key endpoints publish, and the key set the server pins when it verifies: the same data,
// so the server recognises exactly the keys it publishes.
import type { Names, ReceiptKey } from '@svc/core';
import { ML_DSA_87, SLH_DSA_SHA2_256F, sha256Hex, toBase64, toHex } from '@svc/core/primitives';
import { bridgeKeyId, publishedKey, type ReceiptKind, type BridgeKey } from '@svc/core/issue';
import { coseKey, coseKeySet, publicJwk, type Jwks } from '@svc/core/envelope';
import type { Keyring, Role } from './keyring.js';

const RECEIPT_ROLES: [Role, keyof Names['contexts'], ReceiptKind][] = [
  ['answer', 'answer', 'answer'],
  ['autopilot', 'autopilot', 'run'],
  ['export', 'export', 'export'],
  ['sth', 'sth', 'tree-head'],
];

/**
 * The envelope keys, current and historic: each receipt kind's ML-DSA-87 keys (only `kind`'s when
 * given) and the Ed25519 envelope keys, which sign every kind's envelopes (their typ tells them apart).
 */
function envelopeKeys(ring: Keyring, kind?: ReceiptKind): { alg: 'ML-DSA-87' | 'Ed25519'; publicKey: Uint8Array }[] {
  return [
    ...RECEIPT_ROLES.filter(([, , k]) => kind === undefined || k === kind).flatMap(([role]) =>
      ring.publicKeys(role).map((publicKey) => ({ alg: 'ML-DSA-87' as const, publicKey })),
    ),
    ...ring.publicKeys('envelope-ed25519').map((publicKey) => ({ alg: 'Ed25519' as const, publicKey })),
  ];
}

/** The envelope keys as a JWK Set (RFC 7517): AKP for ML-DSA-87 (RFC 9964), OKP for Ed25519; kid the RFC 7638 thumbprint. */
export function envelopeJwks(ring: Keyring, kind?: ReceiptKind): Jwks {
  return { keys: envelopeKeys(ring, kind).map((k) => publicJwk(k.alg, k.publicKey)) };
}

/** The envelope keys as a COSE_KeySet (RFC 9052 s.7); kid the RFC 9679 thumbprint. */
export function envelopeCoseKeySet(ring: Keyring, kind?: ReceiptKind): Uint8Array {
  return coseKeySet(envelopeKeys(ring, kind).map((k) => coseKey(k.alg, k.publicKey)));
}

/** Every receipt key, current and historic, for every signing context. */
export function receiptKeys(ring: Keyring, names: Names): ReceiptKey[] {
  const out: ReceiptKey[] = [];
  for (const [role, ctx] of RECEIPT_ROLES) {
    for (const pk of ring.publicKeys(role)) {
      out.push(publishedKey(pk, names.contexts[ctx]));
    }
  }
  return out;
}

/** The pinned set handed to verifyBundle: receipt keys plus the SLH diversity keys. */
export function pinnedKeys(ring: Keyring, names: Names, slhDiversity: boolean): ReceiptKey[] {
  const keys = receiptKeys(ring, names);
  if (slhDiversity) {
    for (const pk of ring.publicKeys('slh-diversity')) {
      keys.push(publishedKey(pk, names.contexts.answer, SLH_DSA_SHA2_256F));
    }
  }
  return keys;
}

export function pubkeyResponse(ring: Keyring, names: Names, slhDiversity: boolean) {
  const keys = receiptKeys(ring, names);
  const body: Record<string, unknown> = { algo: ML_DSA_87, context: names.contexts.answer, configured: keys.length > 0, keys };
  if (slhDiversity && ring.has('slh-diversity')) {
    const pk = ring.get('slh-diversity').publicKey;
    body.slh_diversity = { algo: SLH_DSA_SHA2_256F, key_id: sha256Hex(pk), public_key_hex: toHex(pk) };
  }
  if (ring.has('envelope-ed25519')) {
    const pk = ring.publicKeys('envelope-ed25519')[0]!;
    body.envelope_ed25519 = { algo: 'Ed25519', key_id: sha256Hex(pk), public_key_hex: toHex(pk) };
  }
  return body;
}

export function modelPlaneKeys(ring: Keyring, names: Names, bridge: boolean) {
  const keys: BridgeKey[] = [];
  if (bridge) {
    for (const [role, r] of [
      ['primary', 'bridge-primary'],
      ['cosign', 'bridge-cosign'],
    ] as const) {
      for (const pk of ring.publicKeys(r)) {
        keys.push({
          role,
          alg: r === 'bridge-primary' ? 'ML-DSA-87' : 'Falcon-1024',
          key_id: bridgeKeyId(pk),
          public_key_b64: toBase64(pk),
        });
      }
    }
  }
  return { signer: `${names.service}-model-plane`, keys };
}

export function evidenceSigner(ring: Keyring, names: Names) {
  const entry = (role: `evidence-${string}` & Role) => {
    const pk = ring.get(role).publicKey;
    return { publicKeyHex: toHex(pk), fingerprint: sha256Hex(pk) };
  };
  return {
    role: 'evidence-pack-signer',
    issuer: names.service,
    alg: 'ML-DSA-87 + SLH-DSA-SHA2-256f (hybrid)',
    verify:
      'Each Evidence Pack signature is checked with both keys: ML-DSA-87 (FIPS 204) and SLH-DSA-SHA2-256f (FIPS 205). Key ids are the SHA-256 fingerprints of the raw public keys.',
    notice:
      'Self-attested signing by this service. This is not a certification, not an accreditation and not a FIPS 140 or CMVP validation.',
    keys: { 'ML-DSA-87': entry('evidence-mldsa'), 'SLH-DSA-SHA2-256f': entry('evidence-slh') },
  };
}
