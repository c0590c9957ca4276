/**
 * Every refusal the service can answer with a non-200 status. A bundle that fails verification is
 * never one of these: it is a verdict with `overallOk: false`.
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
  | 'invalid_request'
  | 'out_of_range'
  | 'not_found'
  | 'method_not_allowed'
  | 'rate_limited'
  | 'unavailable';

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
  out_of_range: 422,
  not_found: 404,
  method_not_allowed: 405,
  rate_limited: 429,
  unavailable: 503,
};

/** The one error class the core throws on purpose. `status` is the HTTP status the server answers. */
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
