// Verifier keys (vkeys) and signers: a key is a name, a type and a public key; its ID and vkey
// follow from them (signed-note "Verifier keys"). Opening a note applies the spec's rule: lines of
// unknown keys are ignored, a known key's line must verify, and at least one must.
import { bytesEqual } from '../encoding/bytes.js';
import { TlogError } from './errors.js';
import { formatNote, formatVkey, hex8, keyId, parseNote, type Note, type NoteSignature, splitVkey } from './note.js';
import {
  SIGNATURE_TYPES,
  checkSignature,
  makeSignature,
  type LogKeyPair,
  type RawSign,
  type RawVerify,
  type SignatureType,
  type SignedSubtree,
} from './signatures.js';
import { isSubtreeType, makeSubtreeSignature } from './subtree-signature.js';

/**
 * A key that verifies note signatures: its name, key ID, type and public key, and its vkey text.
 *
 * @example
 * ```ts
 * const v: NoteVerifier = parseVkey(vkeyText);
 * console.log(v.name, v.type, v.id.toString(16));
 * ```
 */
export interface NoteVerifier {
  name: string;
  id: number;
  type: SignatureType;
  publicKey: Uint8Array;
  vkey: string;
  /** Verifies with another implementation (a native one) instead of noble. */
  raw?: RawVerify;
}

/**
 * A key that signs notes: a NoteVerifier that can also sign.
 *
 * @example
 * ```ts
 * const signer: NoteSigner = noteSigner('example.com/log', logKeygen('ed25519', seed32));
 * const line = signer.sign('example.com/log\n0\n...\n');
 * ```
 */
export interface NoteSigner extends NoteVerifier {
  /** One signature line's parts for `text`, at `timestamp` (seconds) for timestamped types. */
  sign(text: string, timestamp?: number): NoteSignature;
  /** For the types that can (subtree/v1 and this project's ML-DSA-87): a subtree cosignature, timestamp 0. */
  signSubtree?(subtree: SignedSubtree): NoteSignature;
}

/**
 * A note signature line that verified: which key, and when for timestamped types.
 *
 * @example
 * ```ts
 * for (const s of openNote(text, verifiers).verified) console.log(s.name, s.type, s.timestamp);
 * ```
 */
export interface VerifiedSignature {
  name: string;
  id: number;
  type: SignatureType;
  vkey: string;
  /** Seconds since the epoch, for the timestamped types. */
  timestamp?: number;
}

function typeOf(material: Uint8Array): { type: SignatureType; publicKey: Uint8Array } {
  for (const [type, spec] of Object.entries(SIGNATURE_TYPES) as [SignatureType, (typeof SIGNATURE_TYPES)[SignatureType]][]) {
    const n = spec.bytes.length;
    if (material.length === n + spec.publicKeyLength && bytesEqual(material.subarray(0, n), spec.bytes))
      return { type, publicKey: material.slice(n) };
  }
  throw new TlogError('malformed_vkey', 'unsupported signature type or key length');
}

/**
 * A verifier for `name`'s public key of `type`.
 *
 * @example
 * ```ts
 * const v = noteVerifier('example.com/log', 'ed25519', publicKey32);
 * v.vkey; // 'example.com/log+<hex id>+<base64>'
 * ```
 */
export function noteVerifier(name: string, type: SignatureType, publicKey: Uint8Array): NoteVerifier {
  const spec = SIGNATURE_TYPES[type];
  if (publicKey.length !== spec.publicKeyLength)
    throw new TlogError('malformed_vkey', `a ${type} public key is ${spec.publicKeyLength} bytes`);
  return { name, id: keyId(name, spec.bytes, publicKey), type, publicKey, vkey: formatVkey(name, spec.bytes, publicKey) };
}

/**
 * Parse a vkey; its key ID must be the recommended hash of its name, type and key.
 *
 * @example
 * ```ts
 * const log = parseVkey('example.com/log+1f2e3d4c+AT...');
 * const { verified } = openNote(checkpointText, [log]);
 * ```
 */
export function parseVkey(vkey: unknown): NoteVerifier {
  const parts = splitVkey(vkey);
  const { type, publicKey } = typeOf(parts.material);
  const v = noteVerifier(parts.name, type, publicKey);
  if (v.id !== parts.id) throw new TlogError('malformed_vkey', 'key ID is not SHA-256(name || 0x0A || type || key)[:4]');
  return v;
}

/**
 * A signer for `name`'s key; `raw` signs with another implementation (see makeSignature).
 *
 * @example
 * ```ts
 * const signer = noteSigner('example.com/log', logKeygen('ed25519', seed32));
 * const note = signNote(formatCheckpoint(checkpoint), [signer], 0);
 * ```
 */
export function noteSigner(name: string, key: LogKeyPair, raw?: RawSign): NoteSigner {
  const v = noteVerifier(name, key.type, key.publicKey);
  return {
    ...v,
    sign: (text, timestamp = 0) => ({ name, id: v.id, signature: makeSignature(key.type, name, key.secretKey, text, timestamp, raw) }),
    ...(isSubtreeType(key.type)
      ? { signSubtree: (s: SignedSubtree) => ({ name, id: v.id, signature: makeSubtreeSignature(key.type, name, key.secretKey, s, raw) }) }
      : {}),
  };
}

/**
 * Sign `text` with each signer: the note, as text.
 *
 * @example
 * ```ts
 * const text = signNote('example.com/log\n1\n' + rootBase64 + '\n', [logSigner], Math.floor(Date.now() / 1000));
 * ```
 */
export function signNote(text: string, signers: readonly NoteSigner[], timestamp = 0): string {
  return formatNote({ text, signatures: signers.map((s) => s.sign(text, timestamp)) });
}

/**
 * A note whose signatures by known keys were all checked: the verified lines and the unknown ones.
 *
 * @example
 * ```ts
 * const opened: OpenedNote = openNote(text, [logVerifier, ...witnessVerifiers]);
 * console.log(opened.verified.length, opened.unknown.length);
 * ```
 */
export interface OpenedNote {
  note: Note;
  /** The lines of known keys, all verified, in note order. */
  verified: VerifiedSignature[];
  /** Lines of keys not among the verifiers (ignored, as the spec requires). */
  unknown: NoteSignature[];
}

// WF-NOTE
/**
 * Open a signed note: every line whose name and key ID match a given verifier must verify, and at
 * least one must. Throws TlogError('unverified') otherwise, and 'malformed_note' for non-notes.
 *
 * @example
 * ```ts
 * const { note, verified } = openNote(text, [logKey]); // throws TlogError unless a known key signed it
 * const checkpoint = parseCheckpoint(note.text);
 * ```
 */
export function openNote(input: Uint8Array | string | Note, verifiers: readonly NoteVerifier[]): OpenedNote {
  const note = typeof input === 'string' || input instanceof Uint8Array ? parseNote(input) : input;
  const verified: VerifiedSignature[] = [];
  const unknown: NoteSignature[] = [];
  const seen = new Set<string>();
  for (const s of note.signatures) {
    const v = verifiers.find((k) => k.name === s.name && k.id === s.id);
    if (!v) {
      unknown.push(s);
      continue;
    }
    const r = checkSignature(v.type, v.name, v.publicKey, note.text, s.signature, v.raw);
    if (!r.ok) throw new TlogError('unverified', `the signature of ${v.name}+${hex8(v.id)} does not verify`);
    // One key counts once, however many of its lines a note repeats.
    if (seen.has(v.vkey)) continue;
    seen.add(v.vkey);
    verified.push({ name: v.name, id: v.id, type: v.type, vkey: v.vkey, ...(r.timestamp !== undefined ? { timestamp: r.timestamp } : {}) });
  }
  if (verified.length === 0) throw new TlogError('unverified', 'no signature by a known key');
  return { note, verified, unknown };
}
