// Tile arithmetic (c2sp.org/tlog-tiles): which hashes a tile holds, its path, its width at a tree
// size, and entry bundles. A tile at level L, index N holds the hashes of the complete subtrees of
// height 8L numbered N*256 .. N*256+255; a partial tile holds the first W of them.
import { concatBytes } from '../encoding/bytes.js';
import { nodeHash } from '../merkle/hash.js';
import type { NodeId } from '../merkle/plan.js';
import { TlogError } from './errors.js';

/**
 * Levels of the Merkle tree one tile spans: 8.
 *
 * @example
 * ```ts
 * const tileLevel = Math.floor(level / TILE_HEIGHT);
 * ```
 */
export const TILE_HEIGHT = 8;
/**
 * Hashes in a full tile (C2SP tlog-tiles): 256.
 *
 * @example
 * ```ts
 * const fullTiles = Math.floor(size / TILE_WIDTH);
 * ```
 */
export const TILE_WIDTH = 256;
export const HASH_SIZE = 32;
/** Entry bundles of this log hold 32-byte leaves; a reader accepts entries up to the uint16 bound. */
export const MAX_ENTRY_BYTES = 0xffff;

/**
 * A tile's address: level (or `entries`), index and width.
 *
 * @example
 * ```ts
 * const id: TileId = { level: 0, index: 1, width: 256 };
 * tilePath(id); // 'tile/0/001'
 * ```
 */
export interface TileId {
  /** Hash level (0 to 63), or 'entries' for an entry bundle. */
  level: number | 'entries';
  index: number;
  /** 1 to 256; 256 is a full tile. */
  width: number;
}

const pow256 = (level: number): number => 2 ** (TILE_HEIGHT * level);

/**
 * How many hashes tile (level, index) holds at tree size `size` (0: beyond the tree).
 *
 * @example
 * ```ts
 * tileWidth(0, 1, 300); // 44: the partial tile at the right edge of a 300-leaf tree
 * ```
 */
export function tileWidth(level: number, index: number, size: number): number {
  const atLevel = Math.floor(size / pow256(level));
  return Math.max(0, Math.min(TILE_WIDTH, atLevel - index * TILE_WIDTH));
}

/**
 * The node ids (level 8L) a hash tile holds, in order.
 *
 * @example
 * ```ts
 * tileNodes(0, 1, 44); // the 44 level-0 nodes the tile holds
 * ```
 */
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

/**
 * `tile/<L>/<N>[.p/<W>]` or `tile/entries/<N>[.p/<W>]`, relative to the log's prefix.
 *
 * @example
 * ```ts
 * tilePath({ level: 0, index: 1234067, width: 256 }); // 'tile/0/x001/x234/067'
 * tilePath({ level: 'entries', index: 1, width: 44 }); // 'tile/entries/001.p/44'
 * ```
 */
export function tilePath(t: TileId): string {
  if (!Number.isSafeInteger(t.index) || t.index < 0 || !Number.isInteger(t.width) || t.width < 1 || t.width > TILE_WIDTH)
    throw new RangeError('invalid tile');
  if (t.level !== 'entries' && (!Number.isInteger(t.level) || t.level < 0 || t.level > 63)) throw new RangeError('invalid tile level');
  return `tile/${t.level}/${indexPath(t.index)}${t.width < TILE_WIDTH ? `.p/${t.width}` : ''}`;
}

const PATH_RE = /^tile\/(entries|0|[1-9][0-9]?)\/((?:x[0-9]{3}\/)*[0-9]{3})(?:\.p\/([1-9][0-9]{0,2}))?$/;

/**
 * Parse a tile path; only the canonical spelling is a path (null otherwise).
 *
 * @example
 * ```ts
 * parseTilePath('tile/0/001.p/44'); // { level: 0, index: 1, width: 44 }
 * parseTilePath('tile/0/1'); // null: not the canonical form
 * ```
 */
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

/**
 * A hash tile's bytes from its hashes.
 *
 * @example
 * ```ts
 * const bytes = encodeTile(hashes); // 32 bytes per hash
 * ```
 */
export function encodeTile(hashes: readonly Uint8Array[]): Uint8Array {
  if (hashes.length < 1 || hashes.length > TILE_WIDTH || hashes.some((h) => h.length !== HASH_SIZE))
    throw new TlogError('malformed_tile', 'a tile is 1 to 256 hashes of 32 bytes');
  return concatBytes(...hashes);
}

/**
 * The hashes of a tile's bytes; throws TlogError unless exactly `width` hashes.
 *
 * @example
 * ```ts
 * const hashes = decodeTile(await fetchTile('tile/0/000'), 256);
 * ```
 */
export function decodeTile(bytes: Uint8Array, width: number): Uint8Array[] {
  if (bytes.length !== width * HASH_SIZE) throw new TlogError('malformed_tile', `a tile of width ${width} is ${width * HASH_SIZE} bytes`);
  const out: Uint8Array[] = [];
  for (let i = 0; i < width; i++) out.push(bytes.slice(i * HASH_SIZE, (i + 1) * HASH_SIZE));
  return out;
}

/**
 * Entry bundle: each entry with a big-endian uint16 length prefix.
 *
 * @example
 * ```ts
 * const bundle = encodeEntryBundle([utf8('a'), utf8('b')]); // big-endian uint16 length before each entry
 * ```
 */
export function encodeEntryBundle(entries: readonly Uint8Array[]): Uint8Array {
  const parts: Uint8Array[] = [];
  for (const e of entries) {
    if (e.length > MAX_ENTRY_BYTES) throw new TlogError('malformed_tile', 'an entry is at most 65535 bytes');
    parts.push(new Uint8Array([e.length >> 8, e.length & 255]), e);
  }
  return concatBytes(...parts);
}

/**
 * The entries of an entry bundle; throws TlogError unless exactly `width` well-formed entries.
 *
 * @example
 * ```ts
 * const entries = decodeEntryBundle(await fetchTile('tile/entries/000'), 256);
 * ```
 */
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
