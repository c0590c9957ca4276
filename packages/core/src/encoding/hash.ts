import { sha256 as nobleSha256 } from '@noble/hashes/sha2.js';
import { isWellFormedText, toHex, utf8 } from './bytes.js';

/**
 * SHA-256 of bytes.
 *
 * @example
 * ```ts
 * const digest = sha256(utf8('hello'));
 * ```
 */
export function sha256(data: Uint8Array): Uint8Array {
  return nobleSha256(data);
}

/**
 * Hex SHA-256 of bytes or of a string's UTF-8.
 *
 * @example
 * ```ts
 * sha256Hex('hello'); // '2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824'
 * ```
 */
export function sha256Hex(data: Uint8Array | string): string {
  return toHex(nobleSha256(typeof data === 'string' ? utf8(data) : data));
}

/**
 * SHA-256 of text as UTF-8, or null when the text has a lone surrogate (it has no exact UTF-8
 * form). Every hash of an answer or a prompt goes through here, so altered text never matches.
 *
 * @example
 * ```ts
 * textSha256('hello')?.length; // 32
 * textSha256('\ud800'); // null: a lone surrogate cannot be hashed exactly
 * ```
 */
export function textSha256(text: string): Uint8Array | null {
  return isWellFormedText(text) ? nobleSha256(utf8(text)) : null;
}

/**
 * Hex SHA-256 of the UTF-8 text, or null for text with a lone surrogate.
 *
 * @example
 * ```ts
 * textSha256Hex(bundle.answer) === bundle.receipt.answer_sha256; // the answer the receipt signs
 * ```
 */
export function textSha256Hex(text: string): string | null {
  const h = textSha256(text);
  return h === null ? null : toHex(h);
}
