/**
 * `@svc/core/merkle`: the RFC 6962 tree and its C2SP tiles, with no signature code. What a log's
 * storage needs (the server's storage process loads this alone: the post-quantum, curve and cipher
 * modules behind the main entry stay out of it), and what a mirror needs to rebuild roots.
 *
 * @module merkle
 */
// From the modules, not their index: an index both entries import is a chunk of its own with no
// code, which esbuild then imports bare (a warning in every bundler of a side-effect-free package).
export { leafHash, nodeHash, emptyRoot, isTreeSize } from './merkle/hash.js';
export { verifyInclusion, verifyConsistency, rootFromInclusionProof } from './merkle/verify.js';
export { inclusionProof, consistencyProof, treeRoot, rangeHash, type TreeReader } from './merkle/prove.js';
export { MemoryTree } from './merkle/memory.js';
export { isSubtree, subtreeProof, verifySubtreeProof } from './merkle/subtree.js';
export {
  planReads,
  NodeSet,
  frontier,
  integrate,
  type NodeId,
  type StoredNode,
  type Integration,
  type MerkleHasher,
} from './merkle/plan.js';
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
