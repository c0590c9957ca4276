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
 *
 * @example
 * ```ts
 * try {
 *   await verifyBundle(text);
 * } catch (e) {
 *   if (isSvcError(e)) {
 *     const code: SvcErrorCode = e.code;
 *     if (code === 'invalid_json') console.log('not JSON');
 *   }
 * }
 * ```
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

/**
 * The one error class the core throws on purpose. `status` is the HTTP status a server answers.
 *
 * @example
 * ```ts
 * try {
 *   await verifyBundle('{');
 * } catch (e) {
 *   if (e instanceof SvcError) console.log(e.code, e.status); // 'invalid_json' 400
 * }
 * ```
 */
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

/**
 * Whether `e` is an SvcError.
 *
 * @example
 * ```ts
 * verifyBundle(text).catch((e) => (isSvcError(e) ? { status: e.status, code: e.code } : Promise.reject(e)));
 * ```
 */
export function isSvcError(e: unknown): e is SvcError {
  return e instanceof SvcError;
}

/**
 * The HTTP status the spec gives an error code.
 *
 * @example
 * ```ts
 * statusOf('too_large'); // 413
 * ```
 */
export function statusOf(code: SvcErrorCode): number {
  return STATUS[code];
}
