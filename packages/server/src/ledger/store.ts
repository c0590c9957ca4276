// The narrow async interface the ledger keeps its log behind: batch reads (a proof's subtrees in
// one round trip), one sequencing call per batch of leaves, and checkpoint rows. SQLite (embedded,
// the default) and PostgreSQL (several instances on one database) implement it.
import type { NodeId } from '@svc/core/merkle';

/** What was stored is not all there (a missing leaf or subtree): evidence, unlike a read that failed. */
export class StoreDamage extends Error {
  readonly damage = true;
}

/**
 * Whether a failed read is evidence about the stored log (rows missing, a corrupt file), as
 * opposed to a read that could not be made (a timeout, a connection lost): only evidence is a finding.
 */
export function isDamage(e: unknown): boolean {
  if (typeof e !== 'object' || e === null) return false;
  const o = e as { damage?: unknown; code?: unknown; errcode?: unknown; message?: unknown };
  if (o.damage === true) return true;
  if (typeof o.code !== 'string') return false;
  // SQLite (node:sqlite names the extended result code `errcode`): a corrupt file (SQLITE_CORRUPT
  // 11, SQLITE_NOTADB 26, SQLITE_FORMAT 24), a short one (SQLITE_IOERR_SHORT_READ 522), or tables
  // without the columns the log has (SQLITE_ERROR 1, "no such column").
  if (o.code === 'ERR_SQLITE_ERROR' && typeof o.errcode === 'number') {
    const primary = o.errcode & 0xff;
    if (primary === 11 || primary === 26 || primary === 24 || o.errcode === 522) return true;
    return primary === 1 && typeof o.message === 'string' && /no such (column|table)/.test(o.message);
  }
  // PostgreSQL: undefined table or column.
  return o.code === '42P01' || o.code === '42703';
}

export interface HeadRow {
  id: number;
  tree_size: number;
  root_hash: string;
  timestamp: number;
  signed: string;
  receipt: string;
  key_hex: string;
  recorded: number;
}

export type NewHead = Omit<HeadRow, 'id'>;

/** What one sequencing call committed. */
export interface Sequenced {
  firstIndex: number;
  head: HeadRow;
  /** Hashes of the perfect subtrees of the tree after the batch (core `frontier` order). */
  frontier: Uint8Array[];
}

export interface LeafRow {
  data: Uint8Array;
  hash: Uint8Array;
}

/** Reads, all answered from one consistent state when run inside `snapshot`. */
export interface LedgerReads {
  /** Leaves in the log. */
  size(): Promise<number>;
  /** Complete-subtree hashes (level 0: leaf hashes) in the order asked, in one round trip; throws if one is missing. */
  nodes(ids: readonly NodeId[]): Promise<Uint8Array[]>;
  /** Leaves [start, end) in index order; throws if one is missing. */
  leaves(start: number, end: number): Promise<LeafRow[]>;
  findByData(data: Uint8Array): Promise<number | undefined>;
  /** findByData for many entries in one round trip, in order. */
  findAllByData(data: readonly Uint8Array[]): Promise<(number | undefined)[]>;
  findByLeafHash(hash: Uint8Array): Promise<number | undefined>;
  heads(afterId: number, limit: number): Promise<HeadRow[]>;
  latestHeads(limit: number): Promise<HeadRow[]>;
  headAtSize(size: number): Promise<HeadRow | undefined>;
  headCount(): Promise<number>;
  maxHeadSize(): Promise<number>;
}

/**
 * Called inside the sequencing transaction, with the size and root after the batch and the latest
 * head before it; returns the signed head to record with the batch. Synchronous on purpose: the
 * embedded store holds its write transaction on the connection every other read also uses.
 */
export type Seal = (size: number, root: Uint8Array, previous: HeadRow | undefined) => NewHead;

/**
 * A head signed before the transaction, for the tree the writer expects: `size` leaves before the
 * batch, under the head with id `previousId` (null: none yet). A store that finds exactly that
 * state, and computes the same root, records it without calling the seal: one crossing to the
 * writer instead of two. Any difference and the seal is called as usual, so the head is always
 * the store's own tree's.
 */
export interface Presealed {
  size: number;
  previousId: number | null;
  head: NewHead;
}

/** A seal answered elsewhere (another process signs the head), for stores whose write transaction is not shared. */
export type AsyncSeal = (size: number, root: Uint8Array, previous: HeadRow | undefined) => NewHead | Promise<NewHead>;

export interface LedgerStore extends LedgerReads {
  /** An inclusion proof read whole (readInclusion): a store across a process boundary answers it in one round trip. */
  proveInclusion(subject: EntrySubject, treeSize: number | undefined, withRoot: boolean): Promise<InclusionRead>;
  /** A consistency proof and both roots read whole (readConsistency), likewise. */
  proveConsistency(first: number, second: number | undefined): Promise<ConsistencyRead>;
  readonly kind: 'sqlite' | 'postgres';
  /** Where the log lives, for logs and messages (a file, or a database URL without its password). */
  readonly location: string;
  /** Changes whenever the stored log may have changed (any writer, any process, any tampering). */
  version(): Promise<string>;
  /** Run reads against one snapshot, so a concurrent writer is never half-seen. */
  snapshot<T>(read: (r: LedgerReads) => Promise<T>): Promise<T>;
  /**
   * Take the single writer role, give `data` the next indices, store the leaves and every subtree
   * they complete, record the head `seal` returns, and commit: all or nothing, durable on return.
   */
  sequence(data: readonly Uint8Array[], seal: Seal, presealed?: Presealed): Promise<Sequenced>;
  close(): Promise<void>;
}

/** The entry's subject: its data (32 bytes) or its leaf hash. */
export type EntrySubject = { data: Uint8Array; leaf?: undefined } | { leaf: Uint8Array; data?: undefined };

/** An entry's inclusion, read whole: the log's size, the entry's index, and its path (and root) in the tree asked for. */
export interface InclusionRead {
  size: number;
  index?: number | undefined;
  /** Present when the entry is in the tree of the size asked for (the current one by default). */
  proof?: Uint8Array[];
  root?: Uint8Array;
}

/** A consistency proof and both roots, read whole; only the size when the sizes asked for are out of range. */
export interface ConsistencyRead {
  size: number;
  proof?: Uint8Array[];
  oldRoot?: Uint8Array;
  newRoot?: Uint8Array;
}
