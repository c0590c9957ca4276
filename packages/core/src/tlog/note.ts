// Signed notes (c2sp.org/signed-note): text, a blank line, then signature lines
// "— <name> base64(key ID || signature)". Parsing is strict (the bytes either are a note or not);
// which signatures count is decided by the verifiers a caller trusts (verifiers.ts).
import { concatBytes, fromBase64, toBase64, utf8 } from '../encoding/bytes.js';
import { sha256 } from '../encoding/hash.js';
import { TlogError } from './errors.js';

/**
 * A note's text is at most this long, and a note has at most this many signature lines.
 *
 * @example
 * ```ts
 * if (body.byteLength > MAX_NOTE_BYTES) return new Response('note too large', { status: 413 });
 * ```
 */
export const MAX_NOTE_BYTES = 1 << 20;
/**
 * The most signature lines a note may carry (more is malformed).
 *
 * @example
 * ```ts
 * if (note.signatures.length > MAX_NOTE_SIGNATURES) throw new Error('too many signatures');
 * ```
 */
export const MAX_NOTE_SIGNATURES = 100;

/**
 * One signature line of a note: key name, key ID and the signature proper.
 *
 * @example
 * ```ts
 * const lines: NoteSignature[] = parseNote(text).signatures;
 * ```
 */
export interface NoteSignature {
  /** The key name of the line. */
  name: string;
  /** The 32-bit key ID (the first four bytes of the line's base64). */
  id: number;
  /** What follows the key ID: the signature proper, as the key's type defines it. */
  signature: Uint8Array;
}

/**
 * A signed note (C2SP signed-note): its text and signature lines.
 *
 * @example
 * ```ts
 * const note: Note = parseNote(text);
 * formatNote(note) === text; // true for a note in canonical form
 * ```
 */
export interface Note {
  /** The signed text, ending in a newline. */
  text: string;
  signatures: NoteSignature[];
}

const DASH = '\u2014 ';
const decoder = new TextDecoder('utf-8', { fatal: true });

/**
 * Key names are non-empty, free of Unicode spaces and of '+' (signed-note "Format").
 *
 * @example
 * ```ts
 * isKeyName('example.com/log'); // true
 * isKeyName('has space'); // false
 * ```
 */
export function isKeyName(name: unknown): name is string {
  return typeof name === 'string' && name.length > 0 && !/[\s+\p{Zs}]/u.test(name) && !hasControl(name);
}

function hasControl(s: string): boolean {
  // signed-note "Format": no ASCII control character (below U+0020) other than newline.
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 && c !== 0x0a) return true;
  }
  return false;
}

/**
 * key ID = SHA-256(name || 0x0A || type || public key)[:4], big-endian (signed-note "Signatures").
 *
 * @example
 * ```ts
 * const id = keyId('example.com/log', new Uint8Array([0x01]), publicKey32); // the 32-bit ID of an Ed25519 key
 * ```
 */
export function keyId(name: string, type: Uint8Array, publicKey: Uint8Array): number {
  const h = sha256(concatBytes(utf8(name), new Uint8Array([0x0a]), type, publicKey));
  return ((h[0]! << 24) | (h[1]! << 16) | (h[2]! << 8) | h[3]!) >>> 0;
}

export const hex8 = (id: number): string => id.toString(16).padStart(8, '0');

function idBytes(id: number): Uint8Array {
  return new Uint8Array([id >>> 24, (id >>> 16) & 255, (id >>> 8) & 255, id & 255]);
}

/**
 * One signature line, newline included.
 *
 * @example
 * ```ts
 * signatureLine({ name: 'example.com/log', id: 0x1f2e3d4c, signature }); // '\u2014 example.com/log <base64>\n'
 * ```
 */
export function signatureLine(s: NoteSignature): string {
  return `${DASH}${s.name} ${toBase64(concatBytes(idBytes(s.id), s.signature))}\n`;
}

/**
 * The text of a note: its text, an empty line, and one line per signature.
 *
 * @example
 * ```ts
 * const text = formatNote({ text: 'hello\n', signatures: [signer.sign('hello\n')] });
 * ```
 */
export function formatNote(note: Note): string {
  if (!note.text.endsWith('\n')) throw new TlogError('malformed_note', 'note text must end with a newline');
  return `${note.text}\n${note.signatures.map(signatureLine).join('')}`;
}

/**
 * Parse a signed note from its bytes (or text). Refuses anything the spec does not allow: invalid
 * UTF-8, control characters, a text not ending in newline, no signature lines, a malformed line,
 * more than MAX_NOTE_SIGNATURES lines or MAX_NOTE_BYTES of text.
 *
 * @example
 * ```ts
 * const note = parseNote(text); // only the syntax: openNote verifies the signatures
 * ```
 */
export function parseNote(input: Uint8Array | string): Note {
  let s: string;
  if (typeof input === 'string') s = input;
  else {
    if (input.length > MAX_NOTE_BYTES + MAX_NOTE_SIGNATURES * 8_000) throw new TlogError('malformed_note', 'note too large');
    try {
      s = decoder.decode(input);
    } catch {
      throw new TlogError('malformed_note', 'note is not UTF-8');
    }
  }
  if (s.charCodeAt(0) === 0xfeff) throw new TlogError('malformed_note', 'note starts with a byte order mark');
  if (!s.endsWith('\n')) throw new TlogError('malformed_note', 'note must end with a newline');
  // The text is separated from the signatures by the last empty line.
  const split = s.lastIndexOf('\n\n');
  if (split < 0) throw new TlogError('malformed_note', 'no blank line before the signatures');
  const text = s.slice(0, split + 1);
  if (text.length > MAX_NOTE_BYTES) throw new TlogError('malformed_note', 'note text too large');
  // The text is scanned here; each signature line is held to its grammar below (a dash, a key name
  // with no control character, base64 characters only), which leaves no control character there.
  if (hasControl(text)) throw new TlogError('malformed_note', 'note contains a control character other than newline');
  const lines = s.slice(split + 2, -1).split('\n');
  if (lines.length === 1 && lines[0] === '') throw new TlogError('malformed_note', 'a note needs at least one signature line');
  if (lines.length > MAX_NOTE_SIGNATURES) throw new TlogError('malformed_note', `more than ${MAX_NOTE_SIGNATURES} signature lines`);
  const signatures = lines.map((line, i): NoteSignature => {
    if (!line.startsWith(DASH)) throw new TlogError('malformed_note', `signature line ${i + 1} does not start with an em dash and a space`);
    const rest = line.slice(DASH.length);
    const sp = rest.indexOf(' ');
    const name = rest.slice(0, sp);
    if (sp < 0 || !isKeyName(name)) throw new TlogError('malformed_note', `signature line ${i + 1} has no valid key name`);
    const b64 = rest.slice(sp + 1);
    if (!isSignatureBase64(b64)) throw new TlogError('malformed_note', `signature line ${i + 1} has no valid base64 signature`);
    const head = fromBase64(b64.slice(0, 8))!;
    const id = ((head[0]! << 24) | (head[1]! << 16) | (head[2]! << 8) | head[3]!) >>> 0;
    return lazySignature(name, id, b64);
  });
  return { text, signatures };
}

const B64_CHAR = new Uint8Array(128);
for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/') B64_CHAR[c.charCodeAt(0)] = 1;

/** Canonical base64 of at least 5 bytes (a key ID and a signature), checked without decoding it all. */
function isSignatureBase64(b64: string): boolean {
  if (b64.length < 8 || b64.length % 4 !== 0) return false;
  // Alphabet characters, then at most two '=' at the very end (a table loop: these lines run to 6 KB).
  const end = b64.length - (b64.endsWith('==') ? 2 : b64.endsWith('=') ? 1 : 0);
  for (let i = 0; i < end; i++) {
    const c = b64.charCodeAt(i);
    if (c > 127 || B64_CHAR[c] === 0) return false;
  }
  // The last quantum decides canonical padding: decoding it alone checks the unused bits are zero.
  const pad = b64.endsWith('==') ? 2 : b64.endsWith('=') ? 1 : 0;
  return (b64.length / 4) * 3 - pad >= 5 && fromBase64(b64.slice(-4)) !== null;
}

/**
 * A signature line whose bytes are decoded when first read: a note's lines of unknown keys (a
 * 6 KB ML-DSA-87 line, witnesses a client does not follow) are validated but never decoded.
 */
function lazySignature(name: string, id: number, b64: string): NoteSignature {
  let bytes: Uint8Array | undefined;
  return {
    name,
    id,
    get signature(): Uint8Array {
      bytes ??= fromBase64(b64)!.subarray(4);
      return bytes;
    },
  };
}

/** A verifier key's parts: `<name>+<hex key ID>+base64(type || public key)`. */
export interface VkeyParts {
  name: string;
  id: number;
  /** Signature type and public key, as the base64 part holds them. */
  material: Uint8Array;
}

export function formatVkey(name: string, type: Uint8Array, publicKey: Uint8Array): string {
  if (!isKeyName(name)) throw new TlogError('malformed_vkey', 'invalid key name');
  return `${name}+${hex8(keyId(name, type, publicKey))}+${toBase64(concatBytes(type, publicKey))}`;
}

export function splitVkey(vkey: unknown): VkeyParts {
  if (typeof vkey !== 'string' || vkey.length > 16_384) throw new TlogError('malformed_vkey', 'a vkey is a string');
  // Split at the first two '+' only: base64 has '+' of its own.
  const a = vkey.indexOf('+');
  const b = a < 0 ? -1 : vkey.indexOf('+', a + 1);
  if (b < 0) throw new TlogError('malformed_vkey', 'a vkey has three parts separated by +');
  const [name, idHex, b64] = [vkey.slice(0, a), vkey.slice(a + 1, b), vkey.slice(b + 1)];
  if (!isKeyName(name)) throw new TlogError('malformed_vkey', 'invalid key name');
  if (!/^[0-9a-f]{8}$/.test(idHex)) throw new TlogError('malformed_vkey', 'key ID must be 8 lowercase hex digits');
  const material = fromBase64(b64);
  if (!material || material.length < 2) throw new TlogError('malformed_vkey', 'key material is not base64');
  return { name, id: Number.parseInt(idHex, 16), material };
}
