// Public keys arrive as long hex strings, usually the same few on every call. Decoding and
// fingerprinting each distinct string once keeps per-verify overhead near the raw signature check.
// Keyed by the string itself, so a cached entry can never disagree with its input.
import { fromHex } from './bytes.js';
import { sha256Hex } from './hash.js';

export interface DecodedKey {
  bytes: Uint8Array;
  /** hex(SHA-256(bytes)) */
  id: string;
}

const cache = new Map<string, DecodedKey | null>();
const MAX = 256;

export function decodeKeyHex(hex: unknown, byteLength?: number): DecodedKey | null {
  if (typeof hex !== 'string') return null;
  let d = cache.get(hex);
  if (d === undefined) {
    const bytes = fromHex(hex);
    d = bytes ? { bytes, id: sha256Hex(bytes) } : null;
    if (cache.size >= MAX) cache.delete(cache.keys().next().value!);
    cache.set(hex, d);
  }
  if (d && byteLength !== undefined && d.bytes.length !== byteLength) return null;
  return d;
}
