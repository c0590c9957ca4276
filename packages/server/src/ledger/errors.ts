// The ledger's own refusals (and the witness's, whose state is a log's too), one closed union so
// `switch (err.code)` narrows. They say what happened to the log; the edges say what that means to their callers (http/errors.ts maps them to statuses,
// the CLI to exit codes), so the ledger never speaks HTTP.
//
// | code            | when                                                                  | HTTP | svc issue |
// | --------------- | --------------------------------------------------------------------- | ---- | --------- |
// | `withheld`      | the audit withholds the head (rollback, fork, unverifiable): rule 2   | 503  | exit 3    |
// | `unavailable`   | the store cannot be opened or read now                                | 503  | exit 3    |
// | `invalid_request` | a malformed inclusion request                                       | 422  | -         |
// | `out_of_range`  | a size outside the tree, or one with no signed head                   | 422  | -         |
// | `not_found`     | a tile beyond the tree, or one the ledger cannot serve                | 404  | -         |
export type LedgerErrorCode = 'withheld' | 'unavailable' | 'invalid_request' | 'out_of_range' | 'not_found';

export class LedgerError extends Error {
  /** Seconds after which the same request may succeed, where the refusal knows (a full queue). */
  readonly retryAfter?: number;

  constructor(
    readonly code: LedgerErrorCode,
    message: string,
    o: { retryAfter?: number; cause?: unknown } = {},
  ) {
    // The cause stays with the refusal for the logs (a 503 says no more than "unavailable").
    super(message, o.cause === undefined ? undefined : { cause: o.cause });
    this.name = 'LedgerError';
    if (o.retryAfter !== undefined) this.retryAfter = o.retryAfter;
  }
}

export function ledgerUnavailable(what = 'ledger', cause?: unknown): LedgerError {
  return new LedgerError('unavailable', `${what} temporarily unavailable`, { cause });
}

/** An error's message, with its causes' after it (`a: b: c`), for a log line. */
export function messageWithCauses(e: unknown): string {
  const parts: string[] = [];
  for (let cur = e, depth = 0; cur !== undefined && depth < 4; depth++) {
    parts.push(cur instanceof Error ? cur.message : String(cur));
    cur = cur instanceof Error ? cur.cause : undefined;
  }
  return parts.join(': ');
}
