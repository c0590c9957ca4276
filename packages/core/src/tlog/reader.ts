// Reading a tiled log over an injected fetch: every hash used is computed from tiles, and nothing
// is returned until it is bound to the checkpoint's root (a proof that folds to it, or the root
// itself recomputed). A lying mirror can make reads fail, never succeed with other data.
import { bytesEqual } from '../encoding/bytes.js';
import { leafHash } from '../merkle/hash.js';
import { NodeSet, planReads, type NodeId } from '../merkle/plan.js';
import { consistencyProof, inclusionProof, treeRoot, type TreeReader } from '../merkle/prove.js';
import { rootFromInclusionProof, verifyConsistency } from '../merkle/verify.js';
import { TlogError } from './errors.js';
import { TILE_HEIGHT, TILE_WIDTH, decodeEntryBundle, decodeTile, perfectRoot, tilePath, tileWidth } from './tiles.js';

/**
 * Fetch the bytes at a path relative to the log's prefix (`checkpoint`, `tile/0/000`...); reject if absent.
 *
 * @example
 * ```ts
 * const fetchTile: FetchTile = async (path) => new Uint8Array(await (await fetch(`${base}/${path}`)).arrayBuffer());
 * ```
 */
export type FetchTile = (path: string) => Promise<Uint8Array>;

/**
 * A tree size and root, from a verified checkpoint.
 *
 * @example
 * ```ts
 * const c = parseCheckpoint(openNote(text, [logKey]).note.text);
 * const head: TreeHead = { size: c.size, root: c.root };
 * ```
 */
export interface TreeHead {
  size: number;
  root: Uint8Array;
}

// WF-TILE-READER
/**
 * Reads a tiled log over an injected fetch: every hash it returns was authenticated against the tree head, so a lying mirror can make reads fail, never succeed with other data.
 *
 * @example
 * ```ts
 * const reader = new TileReader(fetchTile, { size: c.size, root: c.root });
 * const proof = await reader.inclusionProof(5);
 * const entries = await reader.entries(0, 10);
 * ```
 */
export class TileReader {
  private readonly tiles = new Map<string, Promise<Uint8Array[]>>();

  constructor(
    private readonly fetchTile: FetchTile,
    readonly head: TreeHead,
  ) {}

  /** Hashes of tile (level, index) at this tree size, partial where the tree ends (the full tile as fallback). */
  private tile(level: number, index: number): Promise<Uint8Array[]> {
    const width = tileWidth(level, index, this.head.size);
    if (width === 0) return Promise.reject(new TlogError('malformed_tile', `tile ${level}/${index} is beyond the tree`));
    const path = tilePath({ level, index, width });
    let t = this.tiles.get(path);
    if (!t) {
      t = this.fetchTile(path).then(
        (b) => decodeTile(b, width),
        async (e: unknown) => {
          if (width === TILE_WIDTH) throw e;
          // A partial tile may be gone once the full one exists (tlog-tiles "Partial Tiles").
          const full = await this.fetchTile(tilePath({ level, index, width: TILE_WIDTH }));
          return decodeTile(full, TILE_WIDTH).slice(0, width);
        },
      );
      this.tiles.set(path, t);
      t.catch(() => this.tiles.delete(path));
    }
    return t;
  }

  /** Subtree hashes computed from tiles (not yet authenticated). */
  async nodes(ids: readonly NodeId[]): Promise<Uint8Array[]> {
    return Promise.all(
      ids.map(async ({ level, index }) => {
        const tl = Math.floor(level / TILE_HEIGHT);
        const r = level % TILE_HEIGHT;
        const first = index * 2 ** r;
        const hashes = await this.tile(tl, Math.floor(first / TILE_WIDTH));
        return perfectRoot(hashes, first % TILE_WIDTH, r);
      }),
    );
  }

  /** Run a synchronous Merkle computation over hashes read from tiles (planned, fetched in parallel). */
  async read<T>(run: (t: TreeReader) => T): Promise<T> {
    const ids = planReads(run);
    return run(new NodeSet(ids, await this.nodes(ids)));
  }

  /** Recompute the root from tiles: authenticates the tiles on the tree's right edge. */
  async checkRoot(): Promise<void> {
    const root = await this.read((t) => treeRoot(t, this.head.size));
    if (!bytesEqual(root, this.head.root)) throw new TlogError('proof_failed', 'the tiles do not hash to the checkpoint root');
  }

  /** An inclusion proof for leaf `index`, checked against the root together with the leaf hash tiles give. */
  async inclusionProof(index: number, leaf?: Uint8Array): Promise<Uint8Array[]> {
    if (!Number.isSafeInteger(index) || index < 0 || index >= this.head.size) throw new RangeError('index outside the tree');
    const [proof, fromTile] = await this.read((t) => [inclusionProof(t, index, this.head.size), t.subtree(0, index)] as const);
    const r = rootFromInclusionProof(index, this.head.size, leaf ?? fromTile, proof);
    if (!r || !bytesEqual(r, this.head.root))
      throw new TlogError('proof_failed', `leaf ${index} is not included under the checkpoint root`);
    return proof;
  }

  /** A consistency proof from an earlier head, checked against both roots. */
  async consistencyProof(old: TreeHead): Promise<Uint8Array[]> {
    if (!Number.isSafeInteger(old.size) || old.size < 0 || old.size > this.head.size)
      throw new TlogError('inconsistent', `a tree of ${old.size} leaves cannot precede one of ${this.head.size}`);
    if (old.size === 0 || old.size === this.head.size) {
      if (old.size === this.head.size && !bytesEqual(old.root, this.head.root))
        throw new TlogError('inconsistent', 'two roots for one tree size');
      return [];
    }
    const proof = await this.read((t) => consistencyProof(t, old.size, this.head.size));
    if (!verifyConsistency(old.size, this.head.size, old.root, this.head.root, proof))
      throw new TlogError('inconsistent', `the tree of ${old.size} leaves is not a prefix of the tree of ${this.head.size}`);
    return proof;
  }

  /**
   * Leaf hashes [start, end), each bound to the root: the level-0 tiles that hold them are split
   * into their complete subtrees, and each subtree is proved included like a leaf of the tree above.
   */
  async leafHashes(start: number, end: number): Promise<Uint8Array[]> {
    if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start < 0 || end > this.head.size || start > end)
      throw new RangeError('range outside the tree');
    const out: Uint8Array[] = [];
    for (let n = Math.floor(start / TILE_WIDTH); n * TILE_WIDTH < end; n++) {
      const hashes = await this.tile(0, n);
      await this.authenticate(n, hashes);
      const lo = Math.max(start, n * TILE_WIDTH) - n * TILE_WIDTH;
      const hi = Math.min(end, n * TILE_WIDTH + hashes.length) - n * TILE_WIDTH;
      out.push(...hashes.slice(lo, hi));
    }
    return out;
  }

  private readonly authenticated = new Set<number>();

  private async authenticate(n: number, hashes: readonly Uint8Array[]): Promise<void> {
    if (this.authenticated.has(n)) return;
    const size = this.head.size;
    let offset = 0;
    for (let h = TILE_HEIGHT; h >= 0; h--) {
      if ((hashes.length & (2 ** h)) === 0) continue;
      const k = (n * TILE_WIDTH + offset) / 2 ** h;
      const sub = perfectRoot(hashes, offset, h);
      // The subtree (h, k) is a node of the tree: prove it like a leaf of the tree of level-h nodes.
      const path = await this.read((t) => inclusionProof(t, k * 2 ** h, size).slice(h));
      const r = rootFromInclusionProof(k, Math.floor((size - 1) / 2 ** h) + 1, sub, path);
      if (!r || !bytesEqual(r, this.head.root)) throw new TlogError('proof_failed', `tile 0/${n} does not hash into the checkpoint root`);
      offset += 2 ** h;
    }
    this.authenticated.add(n);
  }

  /** Entries [start, end) from entry bundles, each checked against its authenticated leaf hash. */
  async entries(start: number, end: number): Promise<Uint8Array[]> {
    const leaves = await this.leafHashes(start, end);
    const out: Uint8Array[] = [];
    for (let n = Math.floor(start / TILE_WIDTH); n * TILE_WIDTH < end; n++) {
      const width = tileWidth(0, n, this.head.size);
      let bundle: Uint8Array[];
      try {
        bundle = decodeEntryBundle(await this.fetchTile(tilePath({ level: 'entries', index: n, width })), width);
      } catch (e) {
        if (width === TILE_WIDTH) throw e;
        const full = await this.fetchTile(tilePath({ level: 'entries', index: n, width: TILE_WIDTH }));
        bundle = decodeEntryBundle(full, TILE_WIDTH).slice(0, width);
      }
      const lo = Math.max(start, n * TILE_WIDTH) - n * TILE_WIDTH;
      const hi = Math.min(end, n * TILE_WIDTH + width) - n * TILE_WIDTH;
      for (let i = lo; i < hi; i++) {
        const want = leaves[n * TILE_WIDTH + i - start]!;
        if (!bytesEqual(leafHash(bundle[i]!), want))
          throw new TlogError('proof_failed', `entry ${n * TILE_WIDTH + i} does not hash to its leaf`);
        out.push(bundle[i]!);
      }
    }
    return out;
  }
}
