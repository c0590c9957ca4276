// What the layers above need from a ledger, typed from the core's response schemas: its queries
// (a read model with typed inputs; requests are parsed by the ledger routes) and its one command.
// Every call rejects only with LedgerError (ledger/errors.ts), which the HTTP edge maps to 422 or 503.
import type { ConsistencyBundle, ConsistencyResponse, InclusionResponse, LedgerHistory, LedgerSth } from '@svc/core/schemas';
import type { TileId } from '@svc/core/tlog';
import type { Static } from 'typebox';
import type { InclusionQuery } from './inclusion-request.js';

export type LedgerSthBody = Static<typeof LedgerSth>;
export type InclusionBody = Static<typeof InclusionResponse>;
export type ConsistencyBody = Static<typeof ConsistencyResponse> | Static<typeof ConsistencyBundle>;
export type HistoryBody = Static<typeof LedgerHistory>;

/** Signs checkpoints of heads (the tlog layer provides it: the ledger only asks for the text). */
export interface CheckpointSigner {
  /** The checkpoint note of a head, with every current log key's line. */
  sign(head: { tree_size: number; root_hash: string; timestamp: number }): string;
  /** Verifier keys, one per line: current keys first, then retired ones (text/plain). */
  vkeys(): string;
}

export interface LedgerQueries {
  head(): Promise<LedgerSthBody>;
  inclusion(query: InclusionQuery): Promise<InclusionBody>;
  /** The index of an entry (32 bytes) at the current size, or undefined: one lookup, no proof. */
  find(data: Uint8Array): Promise<number | undefined>;
  /** find for many entries, in order, in one store read. */
  findAll(data: readonly Uint8Array[]): Promise<(number | undefined)[]>;
  /**
   * The inclusion paths of the entries at `indexes` in the tree of `treeSize` (from 1 to the current
   * size), without roots, read together: for a caller that knows where its entries are and holds a
   * signed root to check each path against. LedgerError('out_of_range') for an index or size outside.
   */
  paths(indexes: readonly number[], treeSize: number): Promise<Uint8Array[][]>;
  /** The proof, or a ConsistencyBundle when `signed`. */
  consistency(first: number, second: number | undefined, signed: boolean): Promise<ConsistencyBody>;
  history(verifiable: boolean): Promise<HistoryBody>;
  /** The latest head as a signed checkpoint note (c2sp.org/tlog-checkpoint); withheld like the head. */
  checkpoint(): Promise<string>;
  /** A tile or entry bundle at the current size; LedgerError('not_found') beyond the tree. */
  tile(id: TileId): Promise<Uint8Array>;
  /** The log's verifier keys, one per line. */
  vkeys(): string;
}

export interface LedgerCommands {
  /**
   * Append leaf entries (32 bytes each): resolves once they are committed under a signed head, with
   * the index of the first.
   */
  append(leaves: Uint8Array[]): Promise<{ firstIndex: number }>;
}

export interface LedgerApi extends LedgerQueries, LedgerCommands {
  close(): Promise<void>;
}
