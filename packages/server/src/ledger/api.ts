// What the HTTP layer needs from a ledger, typed from the core's response schemas. Every call
// rejects only with LedgerError (ledger/errors.ts), which the HTTP edge maps to 422 or 503.
import type { ConsistencyBundle, ConsistencyResponse, InclusionResponse, LedgerHistory, LedgerSth } from '@svc/core/schemas';
import type { TileId } from '@svc/core/tlog';
import type { WitnessingStatus } from '../tlog/witnessing.js';
import type { Static } from 'typebox';

export type LedgerSthBody = Static<typeof LedgerSth>;
export type InclusionBody = Static<typeof InclusionResponse>;
export type ConsistencyBody = Static<typeof ConsistencyResponse> | Static<typeof ConsistencyBundle>;
export type HistoryBody = Static<typeof LedgerHistory>;

export interface LedgerApi {
  head(): Promise<LedgerSthBody>;
  /** For a parsed InclusionRequest (validated here). */
  inclusion(request: unknown): Promise<InclusionBody>;
  /** The proof, or a ConsistencyBundle when `signed`. */
  consistency(first: number, second: number | undefined, signed: boolean): Promise<ConsistencyBody>;
  history(verifiable: boolean): Promise<HistoryBody>;
  /**
   * Append leaf entries (32 bytes each): resolves once they are committed under a signed head, with
   * the index of the first. The only command here; everything else is a query.
   */
  append(leaves: Uint8Array[]): Promise<{ firstIndex: number }>;
  /** The latest head as a signed checkpoint note (c2sp.org/tlog-checkpoint); withheld like the head. */
  checkpoint(): Promise<string>;
  /** A tile or entry bundle at the current size; LedgerError('not_found') beyond the tree. */
  tile(id: TileId): Promise<Uint8Array>;
  /** The log's verifier keys, one per line. */
  vkeys(): string;
  /** Where witnessing stands (SVC_WITNESS_POLICY); absent without a policy. */
  witnessing?(): WitnessingStatus;
  close(): Promise<void>;
}
