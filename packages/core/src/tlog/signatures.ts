// The note signature types this project reads and writes, each defined once: its type bytes, key
// and signature lengths, and the exact message it signs.
//   0x01 Ed25519 over the note text (signed-note)
//   0x04 Ed25519 cosignature/v1, timestamped (tlog-cosignature)
//   0x06 ML-DSA-44 subtree/v1, timestamped (tlog-cosignature): the standard post-quantum log key
//   0xff "svc-mldsa87-subtree/v1\n": ML-DSA-87 over the subtree/v1 message, under the FIPS 204
//        context "svc-mldsa87-subtree/v1" (docs/wire-format.md "Checkpoint signatures")
import { ed25519 } from '@noble/curves/ed25519.js';
import { ml_dsa44, ml_dsa87 } from '@noble/post-quantum/ml-dsa.js';
import { concatBytes, utf8 } from '../encoding/bytes.js';
import { parseCheckpoint } from './checkpoint.js';
import { TlogError } from './errors.js';

/**
 * The note signature types this project reads: Ed25519, cosignature/v1, subtree/v1 (ML-DSA-44) and its own ML-DSA-87 type.
 *
 * @example
 * ```ts
 * const t: SignatureType = parseVkey(vkeyText).type;
 * ```
 */
export type SignatureType = 'ed25519' | 'cosignature/v1' | 'subtree/v1' | 'mldsa87-subtree';

/**
 * The identifier line hashed into this project's ML-DSA-87 key type byte string.
 *
 * @example
 * ```ts
 * console.log(MLDSA87_IDENTIFIER); // 'svc-mldsa87-subtree/v1'
 * ```
 */
export const MLDSA87_IDENTIFIER = 'svc-mldsa87-subtree/v1';

/**
 * What a note signature type fixes: its type bytes, key and signature lengths, and whether a
 * timestamp leads the signature.
 *
 * @example
 * ```ts
 * const spec: SignatureTypeSpec = SIGNATURE_TYPES['cosignature/v1'];
 * spec.signatureLength; // 72: an 8-byte timestamp and a 64-byte Ed25519 signature
 * ```
 */
export interface SignatureTypeSpec {
  bytes: Uint8Array;
  publicKeyLength: number;
  /** Signature proper, without the key ID (timestamped types include their 8-byte timestamp). */
  signatureLength: number;
  timestamped: boolean;
}

/**
 * Per signature type: its type bytes, public key and signature lengths, and whether it is timestamped.
 *
 * @example
 * ```ts
 * SIGNATURE_TYPES['cosignature/v1'].timestamped; // true
 * ```
 */
export const SIGNATURE_TYPES: Record<SignatureType, SignatureTypeSpec> = {
  ed25519: { bytes: new Uint8Array([0x01]), publicKeyLength: 32, signatureLength: 64, timestamped: false },
  'cosignature/v1': { bytes: new Uint8Array([0x04]), publicKeyLength: 32, signatureLength: 8 + 64, timestamped: true },
  'subtree/v1': { bytes: new Uint8Array([0x06]), publicKeyLength: 1312, signatureLength: 8 + 2420, timestamped: true },
  'mldsa87-subtree': {
    bytes: concatBytes(new Uint8Array([0xff]), utf8(`${MLDSA87_IDENTIFIER}\n`)),
    publicKeyLength: 2592,
    signatureLength: 8 + 4627,
    timestamped: true,
  },
};

const SUBTREE_LABEL = utf8('subtree/v1\n\0');
const MLDSA87_CONTEXT = utf8(MLDSA87_IDENTIFIER);

function u64(n: number): Uint8Array {
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigUint64(0, BigInt(n));
  return out;
}

function short(b: Uint8Array, what: string): Uint8Array {
  if (b.length < 1 || b.length > 255) throw new TlogError('malformed_checkpoint', `${what} must be 1 to 255 bytes`);
  return concatBytes(new Uint8Array([b.length]), b);
}

/**
 * A subtree of a log as a subtree/v1 cosignature names it: the log's origin, the leaves
 * `[start, end)` and the subtree's hash (a checkpoint is the subtree from 0 to its size).
 *
 * @example
 * ```ts
 * const s: SignedSubtree = { origin: 'example.com/log', start: 8, end: 13, hash: rangeHash(tree, 8, 13) };
 * ```
 */
export interface SignedSubtree {
  origin: string;
  start: number;
  end: number;
  hash: Uint8Array;
}

// WF-COSIGNED-MESSAGE
/**
 * The subtree/v1 `cosigned_message` (tlog-cosignature 1.1): label, cosigner name, timestamp,
 * origin, start, end and hash. The one definition of those bytes.
 *
 * @example
 * ```ts
 * const msg = cosignedMessage('witness.example/w1', 0, { origin, start: 8, end: 13, hash }); // a subtree's, timestamp 0
 * ```
 */
export function cosignedMessage(cosigner: string, timestamp: number, s: SignedSubtree): Uint8Array {
  if (!(s.hash instanceof Uint8Array) || s.hash.length !== 32) throw new TlogError('malformed_checkpoint', 'a subtree hash is 32 bytes');
  return concatBytes(
    SUBTREE_LABEL,
    short(utf8(cosigner), 'cosigner name'),
    u64(timestamp),
    short(utf8(s.origin), 'origin'),
    u64(s.start),
    u64(s.end),
    s.hash,
  );
}

/**
 * The subtree/v1 cosigned_message for a checkpoint (start 0, end = size).
 *
 * @example
 * ```ts
 * const msg = subtreeMessage('witness.example/w1', 1767225600, checkpointText); // what a subtree/v1 cosigner signs
 * ```
 */
export function subtreeMessage(cosigner: string, timestamp: number, text: string): Uint8Array {
  const c = parseCheckpoint(text);
  return cosignedMessage(cosigner, timestamp, { origin: c.origin, start: 0, end: c.size, hash: c.root });
}

/**
 * The cosignature/v1 message: header, time line, then the whole note text.
 *
 * @example
 * ```ts
 * const msg = cosignatureV1Message(1767225600, checkpointText); // what a cosignature/v1 witness signs
 * ```
 */
export function cosignatureV1Message(timestamp: number, text: string): Uint8Array {
  return utf8(`cosignature/v1\ntime ${timestamp}\n${text}`);
}

/**
 * The bytes `type` signs for a key named `name`, at `timestamp` for the timestamped types.
 *
 * @example
 * ```ts
 * const msg = signedMessage('ed25519', 'example.com/log', noteText, 0); // the note text itself for Ed25519
 * ```
 */
export function signedMessage(type: SignatureType, name: string, text: string, timestamp: number): Uint8Array {
  switch (type) {
    case 'ed25519':
      return utf8(text);
    case 'cosignature/v1':
      return cosignatureV1Message(timestamp, text);
    case 'subtree/v1':
    case 'mldsa87-subtree':
      return subtreeMessage(name, timestamp, text);
  }
}

/** Largest timestamp accepted: 2^53 - 1 seconds (the spec's bound is 2^63 - 1; later is not a date). */
export function readTimestamp(sig: Uint8Array): number | null {
  const t = new DataView(sig.buffer, sig.byteOffset, 8).getBigUint64(0);
  return t <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(t) : null;
}

/**
 * Verifies a signature proper over a message with the key's algorithm elsewhere (a native implementation).
 *
 * @example
 * ```ts
 * const raw: RawVerify = (message, signature) => nodeVerify(null, message, publicKeyObject, signature);
 * const v = { ...parseVkey(vkeyText), raw };
 * ```
 */
export type RawVerify = (message: Uint8Array, signature: Uint8Array) => boolean;

/**
 * Check one signature proper; never throws (a malformed input is a failed check). `raw` verifies instead of noble.
 *
 * @example
 * ```ts
 * const r = checkSignature('ed25519', 'example.com/log', publicKey32, noteText, signature);
 * ```
 */
export function checkSignature(
  type: SignatureType,
  name: string,
  publicKey: Uint8Array,
  text: string,
  signature: Uint8Array,
  raw?: RawVerify,
): { ok: true; timestamp?: number } | { ok: false } {
  const spec = SIGNATURE_TYPES[type];
  if (signature.length !== spec.signatureLength || publicKey.length !== spec.publicKeyLength) return { ok: false };
  try {
    let timestamp: number | undefined;
    let sig = signature;
    if (spec.timestamped) {
      const t = readTimestamp(signature);
      if (t === null) return { ok: false };
      timestamp = t;
      sig = signature.subarray(8);
    }
    const ok = verifyMessage(type, publicKey, signedMessage(type, name, text, timestamp ?? 0), sig, raw);
    return ok === true ? (timestamp === undefined ? { ok: true } : { ok: true, timestamp }) : { ok: false };
  } catch {
    return { ok: false };
  }
}

/** The signature proper over `msg`, by `raw` where given, else by noble; throws on malformed input. */
export function verifyMessage(type: SignatureType, publicKey: Uint8Array, msg: Uint8Array, sig: Uint8Array, raw?: RawVerify): boolean {
  if (raw) return raw(msg, sig) === true;
  if (type === 'ed25519' || type === 'cosignature/v1') return ed25519.verify(sig, msg, publicKey, { zip215: false });
  if (type === 'subtree/v1') return ml_dsa44.verify(sig, msg, publicKey);
  return ml_dsa87.verify(sig, msg, publicKey, { context: MLDSA87_CONTEXT });
}

/**
 * Signs a message with the key's algorithm (and, for ML-DSA-87, this type's context) elsewhere: a native implementation.
 *
 * @example
 * ```ts
 * const raw: RawSign = (message) => new Uint8Array(nodeSign(null, message, privateKeyObject)); // a native signer
 * const signer = noteSigner('example.com/log', logKey, raw);
 * ```
 */
export type RawSign = (message: Uint8Array) => Uint8Array;

/**
 * Sign. With noble (the default) deterministically: the same key, text and time give the same
 * bytes on every instance. `raw` computes the signature proper instead (a native backend, which
 * may hedge); its length is checked.
 *
 * @example
 * ```ts
 * const sig = makeSignature('ed25519', 'example.com/log', key.secretKey, noteText, 0);
 * ```
 */
export function makeSignature(
  type: SignatureType,
  name: string,
  secretKey: Uint8Array,
  text: string,
  timestamp = 0,
  raw?: RawSign,
): Uint8Array {
  const spec = SIGNATURE_TYPES[type];
  if (spec.timestamped && (!Number.isSafeInteger(timestamp) || timestamp < 0))
    throw new RangeError('timestamp must be a non-negative integer');
  return signMessage(type, secretKey, signedMessage(type, name, text, timestamp), timestamp, raw);
}

/** The timestamped (or bare) signature over `msg`; for the note and subtree signers only. */
export function signMessage(type: SignatureType, secretKey: Uint8Array, msg: Uint8Array, timestamp: number, raw?: RawSign): Uint8Array {
  const spec = SIGNATURE_TYPES[type];
  let sig: Uint8Array;
  if (raw) {
    sig = raw(msg);
    if (!(sig instanceof Uint8Array) || sig.length !== spec.signatureLength - (spec.timestamped ? 8 : 0))
      throw new RangeError('the signer gave a signature of the wrong length');
  } else if (type === 'ed25519' || type === 'cosignature/v1') sig = ed25519.sign(msg, secretKey);
  else if (type === 'subtree/v1') sig = ml_dsa44.sign(msg, secretKey, { extraEntropy: false });
  else sig = ml_dsa87.sign(msg, secretKey, { context: MLDSA87_CONTEXT, extraEntropy: false });
  return spec.timestamped ? concatBytes(u64(timestamp), sig) : sig;
}

/**
 * A key pair of one note signature type.
 *
 * @example
 * ```ts
 * const key: LogKeyPair = logKeygen('mldsa87-subtree', seed32);
 * ```
 */
export interface LogKeyPair {
  type: SignatureType;
  publicKey: Uint8Array;
  /** Ed25519: the 32-byte seed; ML-DSA: the expanded secret key. */
  secretKey: Uint8Array;
}

/**
 * Derive a key pair of `type` from a 32-byte seed.
 *
 * @example
 * ```ts
 * const logKey = logKeygen('ed25519', crypto.getRandomValues(new Uint8Array(32)));
 * const signer = noteSigner('example.com/log', logKey);
 * ```
 */
export function logKeygen(type: SignatureType, seed: Uint8Array): LogKeyPair {
  if (!(seed instanceof Uint8Array) || seed.length !== 32) throw new RangeError('a 32-byte seed');
  if (type === 'ed25519' || type === 'cosignature/v1') return { type, publicKey: ed25519.getPublicKey(seed), secretKey: seed.slice() };
  const k = (type === 'subtree/v1' ? ml_dsa44 : ml_dsa87).keygen(seed);
  return { type, publicKey: k.publicKey, secretKey: k.secretKey };
}
