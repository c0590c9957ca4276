// What the HTTP layer needs from a ledger, typed from the core's response schemas. Every call
// rejects only with HttpError: 422 for a bad request, 503 when the store cannot be read.
import type { ConsistencyBundle, ConsistencyResponse, InclusionResponse, LedgerHistory, LedgerSth } from '@svc/core/schemas';
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
  close(): Promise<void>;
}
