/**
 * The refusals of the core library: what `verifyBundle`, `buildRecord` and the issuing functions
 * throw when a document cannot be judged at all. A bundle that fails verification is never one of
 * these: it is a verdict with `overallOk: false`. The HTTP-only refusals (not found, rate limited,
 * unavailable...) belong to the server, which extends this union.
 *
 * | code               | status | when                                                            |
 * | ------------------ | ------ | --------------------------------------------------------------- |
 * | `invalid_json`     | 400    | the body is not UTF-8 I-JSON (JSON, member names unique)        |
 * | `too_large`        | 413    | the body is over 2 MB                                           |
 * | `unknown_kind`     | 422    | not a recognised bundle                                         |
 * | `sth_wrapper`      | 422    | a ledger response wrapping `signed_tree_head` (V10)             |
 * | `too_many_turns`   | 422    | a transcript over the turn limit                                |
 * | `record_mismatch`  | 422    | a record whose `attested` differs from its proof (V8)           |
 * | `unsupported_kind` | 422    | a record asked of a kind that has none                          |
 * | `invalid_org`      | 422    | an organisation name outside the documented form                |
 * | `invalid_request`  | 422    | any other malformed request (nesting past the depth guard, text |
 * |                    |        | with no exact UTF-8 form given to an issuing function)          |
 */
export type SvcErrorCode =
  | 'invalid_json'
  | 'too_large'
  | 'unknown_kind'
  | 'sth_wrapper'
  | 'too_many_turns'
  | 'record_mismatch'
  | 'unsupported_kind'
  | 'invalid_org'
  | 'invalid_request';

const STATUS: Record<SvcErrorCode, number> = {
  invalid_json: 400,
  too_large: 413,
  unknown_kind: 422,
  sth_wrapper: 422,
  too_many_turns: 422,
  record_mismatch: 422,
  unsupported_kind: 422,
  invalid_org: 422,
  invalid_request: 422,
};

/** The one error class the core throws on purpose. `status` is the HTTP status a server answers. */
export class SvcError extends Error {
  readonly code: SvcErrorCode;
  readonly status: number;

  constructor(code: SvcErrorCode, message: string) {
    super(message);
    this.name = 'SvcError';
    this.code = code;
    this.status = STATUS[code];
  }

  /** The `{error}` body of interface.md's Errors part. */
  toJSON(): { error: string; code: SvcErrorCode } {
    return { error: this.message, code: this.code };
  }
}

export function isSvcError(e: unknown): e is SvcError {
  return e instanceof SvcError;
}

export function statusOf(code: SvcErrorCode): number {
  return STATUS[code];
}
