// Publishing shapes of keys: ReceiptKey for receipts, the model-plane key item for the bridge.
import { toBase64, toHex } from '../encoding/bytes.js';
import { FALCON_1024, ML_DSA_87, SLH_DSA_SHA2_256F, type KeyPair } from '../crypto/algorithms.js';
import { bridgeKeyId, receiptKeyId } from '../wire/signed.js';
import type { BridgeKey, ReceiptKey } from '../wire/keys.js';

export { receiptKeyId };

/**
 * The published ReceiptKey of raw public key bytes (retired keys have no secret half to wrap).
 *
 * @example
 * ```ts
 * const key = publishedKey(K.answer.publicKey, 'svc-provenance-v1', ML_DSA_87);
 * const res = await verifyBundle(bundle, { trustedKeys: [key] });
 * ```
 */
export function publishedKey(
  publicKey: Uint8Array,
  context: string,
  algo: typeof ML_DSA_87 | typeof SLH_DSA_SHA2_256F = ML_DSA_87,
): ReceiptKey {
  return { key_id: receiptKeyId(publicKey), public_key_hex: toHex(publicKey), algo, context };
}

/**
 * The `receiptKey` a bundle carries for a key pair: its hex public key, id and context (with the SLH-DSA key when given).
 *
 * @example
 * ```ts
 * const receiptKey = toReceiptKey(K.answer, 'svc-provenance-v1', K.slh);
 * ```
 */
export function toReceiptKey(key: KeyPair, context: string, slh?: KeyPair, ed25519PublicKey?: Uint8Array): ReceiptKey {
  if (key.alg !== ML_DSA_87) throw new TypeError('receipt keys are ML-DSA-87');
  const out = publishedKey(key.publicKey, context);
  if (slh) {
    if (slh.alg !== SLH_DSA_SHA2_256F) throw new TypeError('diversity keys are SLH-DSA-SHA2-256f');
    out.slh_public_key_hex = toHex(slh.publicKey);
  }
  // The Ed25519 key of the receipt's envelopes, when they carry a classical signature.
  if (ed25519PublicKey) out.ed25519_public_key_hex = toHex(ed25519PublicKey);
  return out;
}

/**
 * The model-plane key entry (role, alg, key_id, base64 public key) of a key pair.
 *
 * @example
 * ```ts
 * const trustedBridgeKeys = [toBridgeKey(K.bridgePrimary), toBridgeKey(K.bridgeCosign)];
 * ```
 */
export function toBridgeKey(key: KeyPair): BridgeKey {
  if (key.alg !== ML_DSA_87 && key.alg !== FALCON_1024) throw new TypeError('bridge keys are ML-DSA-87 or Falcon-1024');
  return {
    role: key.alg === ML_DSA_87 ? 'primary' : 'cosign',
    alg: key.alg,
    key_id: bridgeKeyId(key.publicKey),
    public_key_b64: toBase64(key.publicKey),
  };
}
