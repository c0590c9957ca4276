// RFC 6962 section 2.1 hashing with domain-separated leaves and interior nodes.
import { concatBytes } from '../encoding/bytes.js';
import { sha256 } from '../encoding/hash.js';

const LEAF = new Uint8Array([0]);
const NODE = new Uint8Array([1]);

/**
 * RFC 6962 leaf hash: SHA-256(0x00 || data).
 *
 * @example
 * ```ts
 * const h = leafHash(utf8('entry'));
 * ```
 */
export function leafHash(data: Uint8Array): Uint8Array {
  return sha256(concatBytes(LEAF, data));
}

/**
 * RFC 6962 interior node hash: SHA-256(0x01 || left || right).
 *
 * @example
 * ```ts
 * const root = nodeHash(leafHash(utf8('a')), leafHash(utf8('b')));
 * ```
 */
export function nodeHash(left: Uint8Array, right: Uint8Array): Uint8Array {
  return sha256(concatBytes(NODE, left, right));
}

/**
 * MTH({}) = SHA-256 of the empty string.
 *
 * @example
 * ```ts
 * emptyRoot(); // SHA-256 of the empty string: the root of a tree of size 0
 * ```
 */
export function emptyRoot(): Uint8Array {
  return sha256(new Uint8Array(0));
}

/** Largest power of two strictly smaller than n (n >= 2). Arithmetic, not bit ops: sizes pass 2^31. */
export function splitPoint(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

export function isPowerOfTwo(n: number): boolean {
  return n >= 1 && 2 ** Math.round(Math.log2(n)) === n;
}

export const isOdd = (x: number): boolean => x % 2 === 1;
export const half = (x: number): number => Math.floor(x / 2);

/**
 * Whether a tree size is one the proof code accepts: a safe non-negative integer.
 *
 * @example
 * ```ts
 * isTreeSize(3); // true
 * isTreeSize(-1); // false
 * ```
 */
export function isTreeSize(n: unknown): n is number {
  return typeof n === 'number' && Number.isSafeInteger(n) && n >= 0;
}
