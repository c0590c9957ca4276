import { decodeKeyBase64, decodeKeyHex } from '../encoding/keycache.js';
import type { BridgeKey, ReceiptKey } from '../wire/keys.js';
import { ML_DSA_87, SLH_DSA_SHA2_256F, syncVerifier, type SyncVerify } from '../crypto/algorithms.js';
import type { CryptoBackend } from '../crypto/backend.js';
import { namesFor, type Names } from '../names.js';
import { isObj } from '../lib/json.js';
import type { LogPolicyChecker } from './log.js';
import type { EnvelopeChecker, ScittBundleChecker } from '../envelope/checker.js';

export type { BridgeKey, ReceiptKey };

/**
 * What verification is given: pinned keys, the deployment name, a crypto backend, pinned model-plane keys and a log policy. Nothing is fetched.
 *
 * @example
 * ```ts
 * const options: VerifyOptions = {
 *   trustedKeys: ((await (await fetch(`${base}/api/provenance/pubkey`)).json()) as { keys: ReceiptKey[] }).keys,
 *   logPolicy: logPolicy(policyText),
 * };
 * const res = await verifyBundle(bundleText, options);
 * ```
 */
export interface VerifyOptions {
  /** Pinned keys. `signerRecognized` is true only for a key here, by public key bytes and context. */
  trustedKeys?: readonly ReceiptKey[];
  /** Deployment name; kinds and contexts derive from it. Default `svc`. */
  service?: string;
  /**
   * Where ML-DSA-87 and SLH-DSA are computed. Default: WebCrypto where the runtime has ML-DSA-87,
   * else noble. Synchronous entry points (verifyBundleSync, buildRecord) need a synchronous one.
   */
  crypto?: CryptoBackend;
  /**
   * Pinned model-plane keys: the `keys` of the service's `/v1/provenance/pubkeys`
   * (`{ role, alg, key_id, public_key_b64 }`). An attestation by other keys still verifies for
   * integrity and is reported with `keyRecognized: false`; it never counts as origin. An entry not
   * of that shape (from JavaScript, or a document read at run time) is skipped, never trusted.
   */
  trustedBridgeKeys?: readonly BridgeKey[];
  /**
   * Judges the signatures of a proof bundle's log layer (`tlogProof`): make it with
   * `logPolicy(policyText)` from `@svc/core/tlog`. Without it the inclusion path is still checked,
   * and the verdict says the log and its witnesses were not judged.
   */
  logPolicy?: LogPolicyChecker;
  /**
   * Checks the JWS and COSE envelopes a receipt carries (`receipt.envelopes`): pass
   * `envelopeChecker`. Without it they are reported `{checked: false}` and do not count: the
   * receipt's own signature covers the same content, and a verifier that never meets envelopes
   * carries no JOSE, CBOR or Ed25519 code (59 KB of a 207 KB minified bundle).
   */
  envelopes?: EnvelopeChecker;
  /**
   * Pinned Ed25519 envelope keys: the `envelope_ed25519` of the service's `/api/provenance/pubkey`
   * (`{ algo: 'Ed25519', public_key_hex }`). An envelope signature by the Ed25519 key a bundle
   * names still verifies for integrity; it says `keyRecognized: true` only for a key here.
   */
  trustedEnvelopeKeys?: readonly { algo?: string; public_key_hex?: string }[];
  /**
   * Checks the SCITT Transparent Statement a proof bundle carries (`scitt`): pass
   * `scittChecker({ logs })` from `@svc/core/scitt`. Without it the verdict says `{checked: false}`
   * and the statement counts neither way.
   */
  scitt?: ScittBundleChecker;
}

interface PinnedKey {
  algo: string;
  context: string;
  publicKey: Uint8Array;
}

/** Everything a verification run needs, decoded once. */
export interface VerifyContext {
  names: Names;
  pinned: PinnedKey[];
  /** Pinned model-plane keys (role `primary` ML-DSA-87, `cosign` Falcon-1024), by public key bytes. */
  pinnedBridge: { role: string; alg: string; publicKey: Uint8Array }[];
  /** Computes every ML-DSA-87 and SLH-DSA check of the run. */
  compute: SyncVerify;
  logPolicy: LogPolicyChecker | null;
  envelopes: EnvelopeChecker | null;
  /** Pinned Ed25519 envelope keys, as bytes. */
  pinnedEnvelope: Uint8Array[];
  scitt: ScittBundleChecker | null;
}

function decodePinned(keys: readonly ReceiptKey[]): PinnedKey[] {
  const pinned: PinnedKey[] = [];
  for (const k of keys) {
    if (!k || typeof k !== 'object' || typeof k.context !== 'string' || typeof k.public_key_hex !== 'string') continue;
    const pk = decodeKeyHex(k.public_key_hex)?.bytes;
    if (pk) pinned.push({ algo: k.algo === SLH_DSA_SHA2_256F ? SLH_DSA_SHA2_256F : ML_DSA_87, context: k.context, publicKey: pk });
  }
  return pinned;
}

function decodeBridgePinned(keys: readonly unknown[]): VerifyContext['pinnedBridge'] {
  const out: VerifyContext['pinnedBridge'] = [];
  if (!Array.isArray(keys)) return out;
  for (const k of keys) {
    if (!isObj(k) || typeof k.role !== 'string' || typeof k.alg !== 'string') continue;
    const pk = decodeKeyBase64(k.public_key_b64)?.bytes ?? null;
    if (pk) out.push({ role: k.role, alg: k.alg, publicKey: pk });
  }
  return out;
}

export function makeContext(options: VerifyOptions = {}, compute?: SyncVerify): VerifyContext {
  return {
    names: namesFor(options.service),
    pinned: decodePinned(options.trustedKeys ?? []),
    pinnedBridge: decodeBridgePinned(options.trustedBridgeKeys ?? []),
    compute: compute ?? syncVerifier(options.crypto),
    logPolicy: options.logPolicy ?? null,
    envelopes: options.envelopes ?? null,
    pinnedEnvelope: (Array.isArray(options.trustedEnvelopeKeys) ? options.trustedEnvelopeKeys : [])
      .filter((k) => isObj(k) && (k.algo === undefined || k.algo === 'Ed25519'))
      .map((k) => decodeKeyHex(k.public_key_hex)?.bytes)
      .filter((b): b is Uint8Array => b instanceof Uint8Array && b.length === 32),
    scitt: options.scitt ?? null,
  };
}
