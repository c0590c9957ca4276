import { fromHex, isHex } from '../encoding/bytes.js';
import { ML_DSA_87, SLH_DSA_SHA2_256F } from '../crypto/algorithms.js';
import { namesFor, type Names } from '../names.js';

/** A published receipt public key (interface.md ReceiptKey). */
export interface ReceiptKey {
  key_id: string;
  public_key_hex: string;
  algo: string;
  context: string;
  /** Optional SLH-DSA public key for the diversity signature (wire-format s.3b). */
  slh_public_key_hex?: string;
}

export interface VerifyOptions {
  /** Pinned keys. `signerRecognized` is true only for a key here, by public key bytes and context. */
  trustedKeys?: readonly ReceiptKey[];
  /** Deployment name; kinds and contexts derive from it. Default `svc`. */
  service?: string;
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
}

export function makeContext(options: VerifyOptions = {}): VerifyContext {
  const names = namesFor(options.service);
  const pinned: PinnedKey[] = [];
  for (const k of options.trustedKeys ?? []) {
    if (!k || typeof k !== 'object' || typeof k.context !== 'string' || !isHex(k.public_key_hex)) continue;
    const pk = fromHex(k.public_key_hex);
    if (pk) pinned.push({ algo: k.algo === SLH_DSA_SHA2_256F ? SLH_DSA_SHA2_256F : ML_DSA_87, context: k.context, publicKey: pk });
  }
  return { names, pinned };
}
