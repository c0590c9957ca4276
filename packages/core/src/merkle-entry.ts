/**
 * `@svc/core/merkle`: the RFC 6962 tree and its C2SP tiles, with no signature code. What a log's
 * storage needs (the server's storage process loads this alone: the post-quantum, curve and cipher
 * modules behind the main entry stay out of it), and what a mirror needs to rebuild roots.
 *
 * @module merkle
 */
export * from './merkle/index.js';
export {
  TILE_HEIGHT,
  TILE_WIDTH,
  tileWidth,
  tileNodes,
  tilePath,
  parseTilePath,
  encodeTile,
  decodeTile,
  encodeEntryBundle,
  decodeEntryBundle,
  type TileId,
} from './tlog/tiles.js';
// Roots and hashes are stored and published in hex.
export { toHex, fromHex } from './encoding/bytes.js';
