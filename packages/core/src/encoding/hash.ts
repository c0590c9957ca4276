import { sha256 as nobleSha256 } from '@noble/hashes/sha2.js';
import { isWellFormedText, toHex, utf8 } from './bytes.js';

export function sha256(data: Uint8Array): Uint8Array {
  return nobleSha256(data);
}

export function sha256Hex(data: Uint8Array | string): string {
  return toHex(nobleSha256(typeof data === 'string' ? utf8(data) : data));
}

/**
 * SHA-256 of text as UTF-8, or null when the text has a lone surrogate (it has no exact UTF-8
 * form). Every hash of an answer or a prompt goes through here, so altered text never matches.
 */
export function textSha256(text: string): Uint8Array | null {
  return isWellFormedText(text) ? nobleSha256(utf8(text)) : null;
}

export function textSha256Hex(text: string): string | null {
  const h = textSha256(text);
  return h === null ? null : toHex(h);
}
