// Model-plane attestation (wire-format s.6): ML-DSA-87 primary plus an optional Falcon-1024
// diversity co-signature. Falcon never makes a bundle pass on its own.
import { bytesEqual, fromHex, utf8 } from '../encoding/bytes.js';
import { decodeKeyBase64 } from '../encoding/keycache.js';
import { FALCON_1024, ML_DSA_87, verifyFalcon1024, verifyMlDsa87, type SyncVerify } from '../crypto/algorithms.js';
import { isObj, parseObject } from '../lib/json.js';
import { bridgeKeyId } from '../wire/signed.js';
import type { Static } from 'typebox';
import type * as S from '../schemas/verdicts.js';

// WF-KEYS: keyRecognized says whether this layer's keys are pinned; it never makes origin.
/**
 * The model-plane attestation layer of a proof verdict (wire-format s.6): primary ML-DSA-87, optional Falcon-1024 co-signature, and whether their keys are pinned.
 *
 * @example
 * ```ts
 * const res = await verifyBundle(bundle, { trustedBridgeKeys });
 * if (res.kind === 'svc-proof' && res.verdict.bridge) console.log(res.verdict.bridge.primaryOk, res.verdict.bridge.keyRecognized);
 * ```
 */
export type BridgeVerdict = Static<typeof S.BridgeVerdict>;

function findKey(keys: unknown, role: string, alg: string, keyId: unknown): Uint8Array | null {
  if (!Array.isArray(keys) || typeof keyId !== 'string') return null;
  for (const k of keys) {
    if (!isObj(k) || k.role !== role || k.alg !== alg || k.key_id !== keyId) continue;
    const pk = decodeKeyBase64(k.public_key_b64)?.bytes ?? null;
    if (pk && bridgeKeyId(pk) === keyId) return pk;
  }
  return null;
}

function sigOf(part: unknown): { keyId: unknown; sig: Uint8Array | null } {
  return isObj(part) ? { keyId: part.key_id, sig: fromHex(part.sig) } : { keyId: undefined, sig: null };
}

export function checkBridge(
  attestation: unknown,
  bridgeKeys: unknown,
  answerHash: string | null,
  context: string,
  compute: SyncVerify,
  pinned: readonly { role: string; alg: string; publicKey: Uint8Array }[] = [],
): {
  verdict: BridgeVerdict;
  layerOk: boolean;
  algorithms: string[];
} {
  const a = isObj(attestation) ? attestation : {};
  const primary = sigOf(a.primary);
  const cosignPresent = a.cosign !== undefined;
  const verdict: BridgeVerdict = {
    present: true,
    primaryOk: false,
    secondaryOk: false,
    cosignPresent,
    keyId: typeof primary.keyId === 'string' ? primary.keyId : '',
    keyRecognized: false,
  };
  const isPinned = (pk: Uint8Array | null, role: string, alg: string) =>
    !!pk && pinned.some((p) => p.role === role && p.alg === alg && bytesEqual(p.publicKey, pk));
  let keysPinned = false;
  const payload = typeof a.payload === 'string' ? a.payload : null;
  const body = parseObject(payload);
  if (a.v === 1 && payload !== null && body && answerHash !== null && body.answer_sha256 === answerHash) {
    const msg = utf8(payload);
    const pk = findKey(bridgeKeys, 'primary', ML_DSA_87, primary.keyId);
    verdict.primaryOk = !!pk && !!primary.sig && verifyMlDsa87(pk, msg, primary.sig, context, compute);
    if (cosignPresent) {
      const cosign = sigOf(a.cosign);
      const ck = findKey(bridgeKeys, 'cosign', FALCON_1024, cosign.keyId);
      verdict.secondaryOk = !!ck && !!cosign.sig && verifyFalcon1024(ck, msg, cosign.sig, context);
      keysPinned = isPinned(pk, 'primary', ML_DSA_87) && isPinned(ck, 'cosign', FALCON_1024);
    } else keysPinned = isPinned(pk, 'primary', ML_DSA_87);
  }
  const layerOk = verdict.primaryOk && (!cosignPresent || verdict.secondaryOk);
  verdict.keyRecognized = layerOk && keysPinned;
  const algorithms: string[] = [];
  if (verdict.primaryOk) algorithms.push(ML_DSA_87);
  if (verdict.secondaryOk) algorithms.push(FALCON_1024);
  return { verdict, layerOk, algorithms };
}
