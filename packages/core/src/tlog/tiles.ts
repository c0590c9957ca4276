// Tile arithmetic (c2sp.org/tlog-tiles): which hashes a tile holds, its path, its width at a tree
// size, and entry bundles. A tile at level L, index N holds the hashes of the complete subtrees of
// height 8L numbered N*256 .. N*256+255; a partial tile holds the first W of them.
import { concatBytes } from '../encoding/bytes.js';
import { nodeHash } from '../merkle/hash.js';
import type { NodeId } from '../merkle/plan.js';
import { TlogError } from './errors.js';

export const TILE_HEIGHT = 8;
export const TILE_WIDTH = 256;
export const HASH_SIZE = 32;
/** Entry bundles of this log hold 32-byte leaves; a reader accepts entries up to the uint16 bound. */
export const MAX_ENTRY_BYTES = 0xffff;

export interface TileId {
  /** Hash level (0 to 63), or 'entries' for an entry bundle. */
  level: number | 'entries';
  index: number;
  /** 1 to 256; 256 is a full tile. */
  width: number;
}

const pow256 = (level: number): number => 2 ** (TILE_HEIGHT * level);

/** How many hashes tile (level, index) holds at tree size `size` (0: beyond the tree). */
export function tileWidth(level: number, index: number, size: number): number {
  const atLevel = Math.floor(size / pow256(level));
  return Math.max(0, Math.min(TILE_WIDTH, atLevel - index * TILE_WIDTH));
}

/** The node ids (level 8L) a hash tile holds, in order. */
export function tileNodes(level: number, index: number, width: number): NodeId[] {
  const out: NodeId[] = [];
  for (let i = 0; i < width; i++) out.push({ level: level * TILE_HEIGHT, index: index * TILE_WIDTH + i });
  return out;
}

function indexPath(n: number): string {
  let s = String(n % 1000).padStart(3, '0');
  for (let m = Math.floor(n / 1000); m > 0; m = Math.floor(m / 1000)) s = `x${String(m % 1000).padStart(3, '0')}/${s}`;
  return s;
}

/** `tile/<L>/<N>[.p/<W>]` or `tile/entries/<N>[.p/<W>]`, relative to the log's prefix. */
export function tilePath(t: TileId): string {
  if (!Number.isSafeInteger(t.index) || t.index < 0 || !Number.isInteger(t.width) || t.width < 1 || t.width > TILE_WIDTH)
    throw new RangeError('invalid tile');
  if (t.level !== 'entries' && (!Number.isInteger(t.level) || t.level < 0 || t.level > 63)) throw new RangeError('invalid tile level');
  return `tile/${t.level}/${indexPath(t.index)}${t.width < TILE_WIDTH ? `.p/${t.width}` : ''}`;
}

const PATH_RE = /^tile\/(entries|0|[1-9][0-9]?)\/((?:x[0-9]{3}\/)*[0-9]{3})(?:\.p\/([1-9][0-9]{0,2}))?$/;

/** Parse a tile path; only the canonical spelling is a path (null otherwise). */
export function parseTilePath(path: string): TileId | null {
  if (path.length > 120) return null;
  const m = PATH_RE.exec(path);
  if (!m) return null;
  const level = m[1] === 'entries' ? 'entries' : Number(m[1]);
  if (level !== 'entries' && level > 63) return null;
  const index = Number(m[2]!.replaceAll('x', '').replaceAll('/', ''));
  const width = m[3] === undefined ? TILE_WIDTH : Number(m[3]);
  if (!Number.isSafeInteger(index) || (m[3] !== undefined && width > 255)) return null;
  const t: TileId = { level, index, width };
  return tilePath(t) === path ? t : null;
}

/** A hash tile's bytes from its hashes. */
export function encodeTile(hashes: readonly Uint8Array[]): Uint8Array {
  if (hashes.length < 1 || hashes.length > TILE_WIDTH || hashes.some((h) => h.length !== HASH_SIZE))
    throw new TlogError('malformed_tile', 'a tile is 1 to 256 hashes of 32 bytes');
  return concatBytes(...hashes);
}

export function decodeTile(bytes: Uint8Array, width: number): Uint8Array[] {
  if (bytes.length !== width * HASH_SIZE) throw new TlogError('malformed_tile', `a tile of width ${width} is ${width * HASH_SIZE} bytes`);
  const out: Uint8Array[] = [];
  for (let i = 0; i < width; i++) out.push(bytes.slice(i * HASH_SIZE, (i + 1) * HASH_SIZE));
  return out;
}

/** Entry bundle: each entry with a big-endian uint16 length prefix. */
export function encodeEntryBundle(entries: readonly Uint8Array[]): Uint8Array {
  const parts: Uint8Array[] = [];
  for (const e of entries) {
    if (e.length > MAX_ENTRY_BYTES) throw new TlogError('malformed_tile', 'an entry is at most 65535 bytes');
    parts.push(new Uint8Array([e.length >> 8, e.length & 255]), e);
  }
  return concatBytes(...parts);
}

export function decodeEntryBundle(bytes: Uint8Array, width: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  let o = 0;
  while (o < bytes.length) {
    if (o + 2 > bytes.length) throw new TlogError('malformed_tile', 'entry bundle truncated in a length prefix');
    const n = (bytes[o]! << 8) | bytes[o + 1]!;
    if (o + 2 + n > bytes.length) throw new TlogError('malformed_tile', 'entry bundle truncated in an entry');
    out.push(bytes.slice(o + 2, o + 2 + n));
    o += 2 + n;
  }
  if (out.length !== width)
    throw new TlogError('malformed_tile', `an entry bundle of width ${width} holds ${width} entries, not ${out.length}`);
  return out;
}

/** Root of the perfect subtree of 2^height hashes starting at `start` in `hashes`. */
export function perfectRoot(hashes: readonly Uint8Array[], start: number, height: number): Uint8Array {
  if (height === 0) return hashes[start]!;
  const half = 2 ** (height - 1);
  return nodeHash(perfectRoot(hashes, start, height - 1), perfectRoot(hashes, start + half, height - 1));
}
