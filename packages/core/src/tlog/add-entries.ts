// The body of tlog-mirror's add-entries (c2sp.org/tlog-mirror), with no I/O: a header (origin,
// upload_start, upload_end, ticket) and the canonical sequence of entry packages, aligned to 256
// entries, each its entries (uint16 length-prefixed) and a subtree consistency proof of the subtree
// [aligned start, end) into the checkpoint of size upload_end. What authenticates a package is that
// proof alone, against a checkpoint the mirror verified: nothing in the body is trusted, not the
// ticket (opaque here; the mirror must authenticate what it derives from one) nor the sizes. The
// reader is incremental, so a mirror verifies and keeps each package as it arrives and never holds
// the whole body.
import { leafHash } from '../merkle/hash.js';
import { MemoryTree } from '../merkle/memory.js';
import type { MerkleHasher } from '../merkle/plan.js';
import { rangeHash, type TreeReader } from '../merkle/prove.js';
import { subtreeProof, verifySubtreeProof } from '../merkle/subtree.js';
import { concatBytes, utf8 } from '../encoding/bytes.js';
import { TlogError } from './errors.js';
import { MAX_SUBTREE_PROOF_LINES } from './sign-subtree.js';

/**
 * Entries per package: packages are aligned to multiples of this.
 *
 * @example
 * ```ts
 * const firstPackageEnd = Math.min(end, start - (start % PACKAGE_ENTRIES) + PACKAGE_ENTRIES);
 * ```
 */
export const PACKAGE_ENTRIES = 256;

/**
 * An add-entries request's header: the log, the upload's range, and the mirror's ticket (opaque).
 *
 * @example
 * ```ts
 * const h: AddEntriesHeader = { origin: 'example.com/log', start: 0, end: 300, ticket: new Uint8Array(0) };
 * ```
 */
export interface AddEntriesHeader {
  origin: string;
  start: number;
  end: number;
  ticket: Uint8Array;
}

/**
 * One package of the canonical sequence: the entries `[start, end)` it carries, and the subtree
 * `[subtreeStart, end)` its proof is for (subtreeStart is start rounded down to 256).
 *
 * @example
 * ```ts
 * packageRanges(300, 700); // [{ subtreeStart: 256, start: 300, end: 512 }, { subtreeStart: 512, start: 512, end: 700 }]
 * ```
 */
export interface PackageRange {
  subtreeStart: number;
  start: number;
  end: number;
}

/**
 * The canonical sequence of packages for an upload of `[start, end)` (tlog-mirror, "Request Body").
 *
 * @example
 * ```ts
 * packageRanges(0, 256).length; // 1
 * ```
 */
export function packageRanges(start: number, end: number): PackageRange[] {
  return Array.from({ length: packageCount(start, end) }, (_, i) => packageAt(start, end, i));
}

/** How many packages the canonical sequence of `[start, end)` has, computed, never enumerated. */
function packageCount(start: number, end: number): number {
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start < 0 || start > end)
    throw new RangeError('an upload is 0 <= start <= end');
  if (start === end) return 0;
  return Math.ceil(end / PACKAGE_ENTRIES) - Math.floor(start / PACKAGE_ENTRIES);
}

/** Package `i` of the canonical sequence of `[start, end)`. */
function packageAt(start: number, end: number, i: number): PackageRange {
  const s = start - (start % PACKAGE_ENTRIES) + i * PACKAGE_ENTRIES;
  return { subtreeStart: s, start: Math.max(start, s), end: Math.min(end, s + PACKAGE_ENTRIES) };
}

const u16 = (n: number) => new Uint8Array([n >> 8, n & 0xff]);
const u64 = (n: number) => {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setBigUint64(0, BigInt(n));
  return b;
};

/**
 * An add-entries body for `[h.start, h.end)` of a log whose first `h.end` entries are `entry(i)`,
 * with each package's proof read from `tree` (a tree of at least `h.end` leaves). `packages` limits
 * it to a prefix of the canonical sequence.
 *
 * @example
 * ```ts
 * const body = formatAddEntries({ origin, start: 0, end: tree.size, ticket }, (i) => entries[i], tree);
 * await fetch(`${mirror}/add-entries`, { method: 'POST', body, headers: { 'content-type': 'application/octet-stream' } });
 * ```
 */
export function formatAddEntries(
  h: AddEntriesHeader,
  entry: (index: number) => Uint8Array,
  tree: TreeReader,
  packages = Infinity,
): Uint8Array {
  const origin = utf8(h.origin);
  if (origin.length > 0xffff || h.ticket.length > 0xffff) throw new RangeError('the origin and the ticket are at most 65535 bytes');
  const parts = [u16(origin.length), origin, u64(h.start), u64(h.end), u16(h.ticket.length), h.ticket];
  for (const p of packageRanges(h.start, h.end).slice(0, packages)) {
    for (let i = p.start; i < p.end; i++) {
      const e = entry(i);
      if (e.length > 0xffff) throw new RangeError(`entry ${i} is over 65535 bytes`);
      parts.push(u16(e.length), e);
    }
    const proof = subtreeProof(tree, p.subtreeStart, p.end, h.end);
    parts.push(new Uint8Array([proof.length]), ...proof);
  }
  return concatBytes(...parts);
}

/**
 * A package as read: its range, its entries and its proof, not yet authenticated.
 *
 * @example
 * ```ts
 * const p: EntryPackage | null = reader.next();
 * ```
 */
export interface EntryPackage extends PackageRange {
  entries: Uint8Array[];
  proof: Uint8Array[];
}

/**
 * Reads an add-entries body as its bytes arrive: `push` each chunk, then take the header once it is
 * complete and each package once it is. Bytes after the last whole package are what an interrupted
 * upload leaves (`pending`). Throws TlogError('malformed_request') for what can never be valid (an
 * origin that is not UTF-8, start above end, a proof of over 63 hashes).
 *
 * @example
 * ```ts
 * const r = new AddEntriesReader();
 * for await (const chunk of request.body) {
 *   r.push(chunk);
 *   for (let p = r.next(); p; p = r.next()) keep(p);
 * }
 * ```
 */
export class AddEntriesReader {
  private buf = new Uint8Array(64 * 1024);
  private len = 0;
  private at = 0;
  private head: AddEntriesHeader | null = null;
  // Counted, not listed: an upload_end near 2^53 names 2^45 packages, and a hostile header must
  // cost nothing before the mirror refuses it.
  private count = 0;
  private done = 0;
  private partial: { entries: Uint8Array[]; k: number } = { entries: [], k: 0 };

  push(chunk: Uint8Array): void {
    // What was read is dropped once it is half the buffer, so a long upload never accumulates; the
    // buffer doubles when it must, so a 16 MiB package arriving in small chunks is copied O(1) times a byte.
    if (this.at > this.buf.length / 2) {
      this.buf.copyWithin(0, this.at, this.len);
      this.len -= this.at;
      this.at = 0;
    }
    if (this.len + chunk.length > this.buf.length) {
      const grown = new Uint8Array(Math.max(this.buf.length * 2, this.len + chunk.length));
      grown.set(this.buf.subarray(0, this.len));
      this.buf = grown;
    }
    this.buf.set(chunk, this.len);
    this.len += chunk.length;
  }

  /** The header, once its bytes have arrived. */
  header(): AddEntriesHeader | null {
    if (this.head) return this.head;
    const b = this.buf.subarray(this.at, this.len);
    if (b.length < 2) return null;
    const o = (b[0]! << 8) | b[1]!;
    if (b.length < 2 + o + 18) return null;
    const t = (b[2 + o + 16]! << 8) | b[2 + o + 17]!;
    if (b.length < 2 + o + 18 + t) return null;
    let origin: string;
    try {
      origin = new TextDecoder('utf-8', { fatal: true }).decode(b.subarray(2, 2 + o));
    } catch {
      throw new TlogError('malformed_request', 'the log origin is not UTF-8');
    }
    const view = new DataView(b.buffer, b.byteOffset + 2 + o, 16);
    const [start, end] = [view.getBigUint64(0), view.getBigUint64(8)];
    if (start > end) throw new TlogError('malformed_request', 'upload_start is above upload_end');
    if (end > BigInt(Number.MAX_SAFE_INTEGER)) throw new TlogError('malformed_request', 'upload_end is 2^53 or more');
    this.head = { origin, start: Number(start), end: Number(end), ticket: b.slice(2 + o + 18, 2 + o + 18 + t) };
    this.count = packageCount(this.head.start, this.head.end);
    this.at += 2 + o + 18 + t;
    return this.head;
  }

  /** The next whole package, or null until its bytes have arrived (or after the last one). */
  next(): EntryPackage | null {
    if (!this.header()) return null;
    if (this.done >= this.count) return null;
    const range = packageAt(this.head!.start, this.head!.end, this.done);
    const b = this.buf.subarray(this.at, this.len);
    // Where the last call stopped inside this package: a package trickled in one byte at a time
    // is scanned once, not once per byte.
    const entries = this.partial.entries;
    let k = this.partial.k;
    for (let i = range.start + entries.length; i < range.end; i++) {
      if (b.length < k + 2) break;
      const n = (b[k]! << 8) | b[k + 1]!;
      if (b.length < k + 2 + n) break;
      entries.push(b.slice(k + 2, k + 2 + n));
      k += 2 + n;
    }
    this.partial.k = k;
    if (entries.length < range.end - range.start) return null;
    if (b.length < k + 1) return null;
    const hashes = b[k]!;
    if (hashes > MAX_SUBTREE_PROOF_LINES) throw new TlogError('malformed_request', `a package proof of ${hashes} hashes (at most 63)`);
    if (b.length < k + 1 + 32 * hashes) return null;
    const proof = Array.from({ length: hashes }, (_, j) => b.slice(k + 1 + 32 * j, k + 1 + 32 * (j + 1)));
    this.at += k + 1 + 32 * hashes;
    this.done++;
    this.partial = { entries: [], k: 0 };
    return { ...range, entries, proof };
  }

  /** Packages read so far, and whether every package of the upload has been. */
  get packages(): { read: number; of: number; complete: boolean } {
    return { read: this.done, of: this.count, complete: this.head !== null && this.done === this.count };
  }

  /** Bytes received and not yet part of a header or a whole package. */
  get pending(): number {
    return this.len - this.at;
  }
}

/**
 * Whether a package is authentic: the subtree `[p.subtreeStart, p.end)`, from the leaf hashes the
 * mirror already holds for `[p.subtreeStart, p.start)` and the package's entries, has a proof into
 * the checkpoint `{ size, root }` (whose size must be the upload's end). Never throws. `hasher`:
 * RFC 6962's two hashes on a faster SHA-256 where the platform has one (the same hashes).
 *
 * @example
 * ```ts
 * if (!verifyPackage(p, heldLeafHashes, { size: header.end, root: checkpoint.root })) return status(422);
 * ```
 */
export function verifyPackage(
  p: EntryPackage,
  held: readonly Uint8Array[],
  checkpoint: { size: number; root: Uint8Array },
  hasher?: MerkleHasher,
): boolean {
  try {
    if (held.length !== p.start - p.subtreeStart || p.entries.length !== p.end - p.start) return false;
    const t = new MemoryTree(hasher);
    for (const h of held) t.appendLeafHash(h);
    for (const e of p.entries) t.appendLeafHash(hasher ? hasher.leaf(e) : leafHash(e));
    const hash = rangeHash(t, 0, p.end - p.subtreeStart);
    return verifySubtreeProof(p.subtreeStart, p.end, checkpoint.size, p.proof, hash, checkpoint.root);
  } catch {
    return false;
  }
}
