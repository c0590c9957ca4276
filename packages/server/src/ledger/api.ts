// What the HTTP layer needs from a ledger. The SQLite-backed implementation lives beside this file;
// a PostgreSQL one would implement the same.
export interface LedgerApi {
  /** LedgerSth body. Throws HttpError('unavailable') when the store cannot be read. */
  head(): Record<string, unknown>;
  /** InclusionResponse for a parsed InclusionRequest. Throws HttpError 422 / 503. */
  inclusion(request: unknown): Record<string, unknown>;
  /** ConsistencyResponse, or a ConsistencyBundle when `signed`. Throws HttpError 422 / 503. */
  consistency(first: number, second: number | undefined, signed: boolean): Record<string, unknown>;
  /** LedgerHistory. Throws HttpError('unavailable'). */
  history(verifiable: boolean): Record<string, unknown>;
  close(): void;
}
