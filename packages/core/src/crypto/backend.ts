// The crypto backend seam: where ML-DSA-87 and SLH-DSA-SHA2-256f are computed. noble is the
// default on every runtime; a runtime's WebCrypto is the caller's choice (`webCryptoBackend()`,
// which checks that it really has the algorithm by generating, exporting, importing and checking
// a key, never by version), because Node 24 marks its ML-DSA experimental and prints a warning into
// the caller's process on first use (issue 54: no library call writes to the user's stderr).
// Callers can inject their own (the server injects node:crypto). Falcon-1024 stays on noble.
//
// Backends only compute. Lengths, contexts and types are checked by the core before a backend is
// called, and whatever a backend throws, rejects or returns other than `true` is a failed check.
import { ml_dsa87 } from '@noble/post-quantum/ml-dsa.js';
import { slh_dsa_sha2_256f } from '@noble/post-quantum/slh-dsa.js';
import { ML_DSA_87, SLH_DSA_SHA2_256F, type KeyPair } from './ids.js';

/**
 * The algorithms a crypto backend may compute: ML-DSA-87 and SLH-DSA-SHA2-256f.
 *
 * @example
 * ```ts
 * const alg: BackendAlgorithm = ML_DSA_87;
 * ```
 */
export type BackendAlgorithm = typeof ML_DSA_87 | typeof SLH_DSA_SHA2_256F;

/**
 * Where ML-DSA-87 and SLH-DSA are computed. Backends only compute: lengths, contexts and types are checked by the core before a backend is called.
 *
 * @example
 * ```ts
 * const logged: CryptoBackend = {
 *   name: 'logged noble',
 *   algorithms: [ML_DSA_87],
 *   sync: true,
 *   verify: (alg, pk, msg, sig, ctx) => nobleBackend.verify(alg, pk, msg, sig, ctx),
 * };
 * await verifyBundle(bundle, { crypto: logged });
 * ```
 */
export interface CryptoBackend {
  /** Shown in logs and benchmarks: `noble`, `webcrypto`, `node:crypto`, ... */
  readonly name: string;
  /** The algorithms this backend computes; the others fall back to noble. */
  readonly algorithms: readonly BackendAlgorithm[];
  /** Whether verify (and sign) return plain values rather than promises. */
  readonly sync: boolean;
  verify(
    alg: BackendAlgorithm,
    publicKey: Uint8Array,
    message: Uint8Array,
    signature: Uint8Array,
    context: Uint8Array,
  ): boolean | Promise<boolean>;
  /**
   * Sign (optional). Without `extraEntropy` a backend signs deterministically if it can; native
   * backends may always hedge. Any backend's signatures verify under any other.
   */
  sign?(
    alg: BackendAlgorithm,
    key: KeyPair,
    message: Uint8Array,
    context: Uint8Array,
    extraEntropy?: Uint8Array,
  ): Uint8Array | Promise<Uint8Array>;
}

/**
 * The pure-JavaScript backend (noble-post-quantum): synchronous, on every runtime.
 *
 * @example
 * ```ts
 * const res = verifyBundleSync(bundle, { crypto: nobleBackend });
 * ```
 */
export const nobleBackend: CryptoBackend = {
  name: 'noble',
  algorithms: [ML_DSA_87, SLH_DSA_SHA2_256F],
  sync: true,
  verify: (alg, pk, msg, sig, context) => (alg === ML_DSA_87 ? ml_dsa87 : slh_dsa_sha2_256f).verify(sig, msg, pk, { context }) === true,
  sign: (alg, key, msg, context, extraEntropy) =>
    (alg === ML_DSA_87 ? ml_dsa87 : slh_dsa_sha2_256f).sign(msg, key.secretKey, { context, extraEntropy: extraEntropy ?? false }),
};

/**
 * Which backend computes `alg`: the given one when it has the algorithm, else noble.
 *
 * @example
 * ```ts
 * backendFor((await webCryptoBackend()) ?? undefined, SLH_DSA_SHA2_256F).name; // 'noble': WebCrypto has no SLH-DSA
 * ```
 */
export function backendFor(backend: CryptoBackend | undefined, alg: BackendAlgorithm): CryptoBackend {
  return backend?.algorithms.includes(alg) ? backend : nobleBackend;
}

/** The minimal WebCrypto surface used here, so no DOM typings are needed. */
interface Subtle {
  generateKey(alg: unknown, extractable: boolean, usages: string[]): Promise<unknown>;
  importKey(format: string, data: Uint8Array, alg: unknown, extractable: boolean, usages: string[]): Promise<unknown>;
  exportKey(format: string, key: unknown): Promise<ArrayBuffer>;
  sign(alg: unknown, key: unknown, data: Uint8Array): Promise<ArrayBuffer>;
  verify(alg: unknown, key: unknown, signature: Uint8Array, data: Uint8Array): Promise<boolean>;
}

function subtleOf(x: unknown): Subtle | null {
  const s = (x as { crypto?: { subtle?: Subtle } } | undefined)?.crypto?.subtle;
  return s && typeof s.importKey === 'function' && typeof s.verify === 'function' ? s : null;
}

/**
 * A WebCrypto backend for ML-DSA-87 when `subtle` really supports it: a generated key must export
 * and import as raw bytes, its signature must verify under the same context and fail under another.
 * Resolves to null otherwise (no WebCrypto, no ML-DSA, an insecure context, a partial engine).
 *
 * @example
 * ```ts
 * const web = await webCryptoBackend(); // null where WebCrypto has no working ML-DSA-87
 * const res = await verifyBundle(bundle, { crypto: web ?? nobleBackend });
 * ```
 */
export async function webCryptoBackend(subtle: unknown = subtleOf(globalThis)): Promise<CryptoBackend | null> {
  const s = subtle as Subtle | null;
  if (!s) return null;
  const name = ML_DSA_87;
  try {
    const pair = (await s.generateKey({ name }, true, ['sign', 'verify'])) as { publicKey: unknown; privateKey: unknown };
    const raw = new Uint8Array(await s.exportKey('raw-public', pair.publicKey));
    const pub = await s.importKey('raw-public', raw, { name }, false, ['verify']);
    const msg = new Uint8Array([1, 2, 3]);
    const ctx = new Uint8Array([7]);
    const sig = new Uint8Array(await s.sign({ name, context: ctx }, pair.privateKey, msg));
    if ((await s.verify({ name, context: ctx }, pub, sig, msg)) !== true) return null;
    if ((await s.verify({ name, context: new Uint8Array([8]) }, pub, sig, msg)) !== false) return null;
  } catch {
    return null;
  }
  // Imported keys are reused for the same key bytes (the core hands the same array for the same key).
  const keys = new WeakMap<Uint8Array, Promise<unknown>>();
  const importPublic = (pk: Uint8Array) => {
    const hit = keys.get(pk);
    if (hit) return hit;
    const k = s.importKey('raw-public', pk, { name }, false, ['verify']);
    keys.set(pk, k);
    return k;
  };
  return {
    name: 'webcrypto',
    algorithms: [ML_DSA_87],
    sync: false,
    verify: async (_alg, pk, msg, sig, context) => (await s.verify({ name, context }, await importPublic(pk), sig, msg)) === true,
  };
}

/**
 * The backend `verifyBundle` uses when none is passed: noble, on every runtime. A runtime's own
 * ML-DSA-87 is an explicit choice (`{ crypto: await webCryptoBackend() ?? nobleBackend }`): Node
 * 24's prints an ExperimentalWarning to the process's stderr when first used.
 *
 * @example
 * ```ts
 * const backend = await defaultCrypto();
 * console.log(backend.name); // 'noble'
 * ```
 */
export function defaultCrypto(): Promise<CryptoBackend> {
  return Promise.resolve(nobleBackend);
}
