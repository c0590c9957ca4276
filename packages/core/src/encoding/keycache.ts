// Public keys arrive as long hex or base64 strings, usually the same few on every call. Decoding
// and fingerprinting each distinct string once keeps per-verify overhead near the raw signature
// check (decoding the pinned bridge keys' base64 was 8% of a verify request's CPU on Node 24).
// Keyed by the string itself, so a cached entry can never disagree with its input; the same string
// also yields the same array, which lets a crypto backend reuse its imported key object.
import { fromBase64, fromHex } from './bytes.js';
import { sha256Hex } from './hash.js';

export interface DecodedKey {
  bytes: Uint8Array;
  /** hex(SHA-256(bytes)) */
  id: string;
}

const MAX = 256;

function cached(decode: (s: string) => Uint8Array | null): (text: unknown, byteLength?: number) => DecodedKey | null {
  const cache = new Map<string, DecodedKey | null>();
  return (text, byteLength) => {
    if (typeof text !== 'string') return null;
    let d = cache.get(text);
    if (d === undefined) {
      const bytes = decode(text);
      d = bytes ? { bytes, id: sha256Hex(bytes) } : null;
      if (cache.size >= MAX) cache.delete(cache.keys().next().value!);
      cache.set(text, d);
    }
    if (d && byteLength !== undefined && d.bytes.length !== byteLength) return null;
    return d;
  };
}

/** A public key written in hex, decoded once per distinct string. */
export const decodeKeyHex: (hex: unknown, byteLength?: number) => DecodedKey | null = cached(fromHex);
/** A public key written in base64, decoded once per distinct string. */
export const decodeKeyBase64: (b64: unknown, byteLength?: number) => DecodedKey | null = cached(fromBase64);
