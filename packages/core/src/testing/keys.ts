// Deterministic keys and randomness for tests and vectors: every byte derives from a seed, so a
// failure reproduces exactly. Never use these keys for anything but testing.
import { sha256 } from '../encoding/hash.js';
import { concatBytes, utf8 } from '../encoding/bytes.js';
import { FALCON_1024, ML_DSA_87, SLH_DSA_SHA2_256F, keygen, type KeyPair, type RandomSource } from '../crypto/algorithms.js';
import { namesFor } from '../names.js';
import { toBridgeKey, toReceiptKey } from '../issue/keys.js';
import type { BridgeKey, ReceiptKey } from '../wire/keys.js';

/**
 * SHA-256 in counter mode over a label: a reproducible byte stream, not a CSPRNG.
 *
 * @example
 * ```ts
 * seededBytes('my-test', 32); // the same 32 bytes every run
 * ```
 */
export function seededBytes(label: string, length: number): Uint8Array {
  const out = new Uint8Array(length);
  const base = utf8(label);
  for (let i = 0, off = 0; off < length; i++) {
    const block = sha256(concatBytes(base, new Uint8Array([i >>> 24, (i >>> 16) & 255, (i >>> 8) & 255, i & 255])));
    out.set(block.subarray(0, Math.min(32, length - off)), off);
    off += 32;
  }
  return out;
}

/**
 * A deterministic RandomSource from a label, for reproducible hedged signatures in tests.
 *
 * @example
 * ```ts
 * const sig = sign(key, msg, 'ctx', seededRandom('run-1'));
 * ```
 */
export function seededRandom(label: string): RandomSource {
  let n = 0;
  return (len: number) => seededBytes(`${label}/${n++}`, len);
}

/**
 * Deterministic keys of every role for tests, with the pinned key sets that recognise them. Never use them in production.
 *
 * @example
 * ```ts
 * const K: TestKeys = testKeys('my-suite');
 * const bundle = issueProof({ answer: 'a', model: 'm', ts: 1 }, { receipt: K.answer });
 * verifyBundleSync(bundle, { trustedKeys: K.trustedKeys }).signerRecognized; // true
 * ```
 */
export interface TestKeys {
  answer: KeyPair;
  autopilot: KeyPair;
  export: KeyPair;
  sth: KeyPair;
  bridgePrimary: KeyPair;
  bridgeCosign: KeyPair;
  /** SLH keygen is cheap; only signing is slow (about 0.5 s). */
  slh: KeyPair;
  random: RandomSource;
  /** The pinned key set for these keys, one per context. */
  trustedKeys: ReceiptKey[];
  /** The pinned model-plane keys, as a service's /v1/provenance/pubkeys lists them. */
  trustedBridgeKeys: BridgeKey[];
}

const cache = new Map<string, TestKeys>();

/**
 * Deterministic test keys from a seed (cached per seed and service).
 *
 * @example
 * ```ts
 * const K = testKeys('my-suite', 'acme');
 * const bundle = issueProof({ answer: 'a', model: 'm', ts: 1 }, { receipt: K.answer }, { service: 'acme' });
 * ```
 */
export function testKeys(seed = 'svc-test', service?: string): TestKeys {
  const id = `${seed}|${service ?? ''}`;
  const hit = cache.get(id);
  if (hit) return hit;
  const n = namesFor(service);
  const k = (name: string, alg: typeof ML_DSA_87 | typeof SLH_DSA_SHA2_256F | typeof FALCON_1024, len: number) =>
    keygen(alg, seededBytes(`${seed}/${name}`, len));
  const keys: TestKeys = {
    answer: k('answer', ML_DSA_87, 32),
    autopilot: k('autopilot', ML_DSA_87, 32),
    export: k('export', ML_DSA_87, 32),
    sth: k('sth', ML_DSA_87, 32),
    bridgePrimary: k('bridge', ML_DSA_87, 32),
    bridgeCosign: k('cosign', FALCON_1024, 48),
    slh: k('slh', SLH_DSA_SHA2_256F, 96),
    random: seededRandom(`${seed}/random`),
    trustedKeys: [],
    trustedBridgeKeys: [],
  };
  keys.trustedBridgeKeys = [toBridgeKey(keys.bridgePrimary), toBridgeKey(keys.bridgeCosign)];
  keys.trustedKeys = [
    toReceiptKey(keys.answer, n.contexts.answer),
    toReceiptKey(keys.autopilot, n.contexts.autopilot),
    toReceiptKey(keys.export, n.contexts.export),
    toReceiptKey(keys.sth, n.contexts.sth),
  ];
  cache.set(id, keys);
  return keys;
}
