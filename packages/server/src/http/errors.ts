// The server's refusals: the core's (a document that cannot be judged) plus those only HTTP has.
// One closed union, so `switch (code)` narrows; one table of statuses.
import { SvcError, statusOf, type SvcErrorCode } from '@svc/core';
import { cborEncode } from '@svc/core/envelope';
import { LedgerError, type LedgerErrorCode } from '../ledger/errors.js';
import type { Logger } from '../log.js';
import { currentRequestId } from '../util/request-id.js';
import type { AppResponse } from './types.js';

/**
 * | code                 | status | when                                                         |
 * | -------------------- | ------ | ------------------------------------------------------------ |
 * | every `SvcErrorCode` | its own | a refusal of the core library (see `@svc/core` errors)      |
 * | `out_of_range`       | 422    | a ledger query parameter outside the tree                    |
 * | `not_found`          | 404    | no such endpoint                                             |
 * | `method_not_allowed` | 405    | the endpoint exists; the method does not (with `Allow`)      |
 * | `rate_limited`       | 429    | the client's window is full (with `Retry-After`)             |
 * | `unavailable`        | 503    | ledger withheld or unreadable, the verify queue or the body  |
 * |                      |        | budget is full                                               |
 * | `not_implemented`    | 501    | a transfer coding other than chunked (RFC 9112 s.6.1)        |
 * | `unauthorized`       | 401    | the private issuing listener: no valid bearer token          |
 * | `bad_gateway`        | 502    | the upstream model failed or answered what is not an answer  |
 * | `gateway_timeout`    | 504    | the upstream model did not answer within its deadline        |
 * | `internal`           | 500    | a fault of the server (a bug, a crashed worker): never the   |
 * |                      |        | client's; the body names the request id the log lines carry  |
 *
 * @example
 * ```ts
 * function retryable(code: HttpErrorCode): boolean {
 *   return code === 'rate_limited' || code === 'unavailable';
 * }
 * ```
 */
export type HttpErrorCode =
  | SvcErrorCode
  | 'out_of_range'
  | 'not_found'
  | 'method_not_allowed'
  | 'rate_limited'
  | 'unavailable'
  | 'not_implemented'
  | 'unauthorized'
  | 'bad_gateway'
  | 'gateway_timeout'
  | 'internal';

const HTTP_ONLY: Record<Exclude<HttpErrorCode, SvcErrorCode>, number> = {
  out_of_range: 422,
  not_found: 404,
  method_not_allowed: 405,
  rate_limited: 429,
  unavailable: 503,
  not_implemented: 501,
  unauthorized: 401,
  bad_gateway: 502,
  gateway_timeout: 504,
  internal: 500,
};

/**
 * An HTTP refusal with its documented status and body, as the server answers it.
 *
 * @example
 * ```ts
 * throw new HttpError('not_found', 'no such leaf');
 * ```
 */
export class HttpError extends Error {
  readonly code: HttpErrorCode;
  readonly status: number;

  /** Seconds, sent as Retry-After (overload, rate limits). */
  readonly retryAfter?: number;
  /** Other headers the refusal needs (Allow). */
  readonly headers: Readonly<Record<string, string>>;
  /** A short title where a protocol names one (SCRAPI's "Rejected"); else the code's own. */
  readonly title?: string;

  /**
   * `status` overrides the code's own only where HTTP itself fixes it: a malformed request line is
   * 400 (RFC 9112), whatever refusal code names it.
   */
  constructor(
    code: HttpErrorCode,
    message: string,
    o: { retryAfter?: number; headers?: Record<string, string>; status?: number; title?: string } = {},
  ) {
    super(message);
    this.name = 'HttpError';
    this.code = code;
    this.status = o.status ?? (code in HTTP_ONLY ? HTTP_ONLY[code as keyof typeof HTTP_ONLY] : statusOf(code as SvcErrorCode));
    if (o.retryAfter !== undefined) this.retryAfter = o.retryAfter;
    this.headers = o.headers ?? {};
    if (o.title !== undefined) this.title = o.title;
  }

  /** The `{error}` body of interface.md's Errors part, with the code beside it. */
  toJSON(): { error: string; code: HttpErrorCode } {
    return { error: this.message, code: this.code };
  }
}

// ERR: every refusal maps to one code of a closed union and its status; bodies are {error, code}.
/** What each ledger refusal is to an HTTP client. */
const LEDGER_STATUS: Record<LedgerErrorCode, HttpErrorCode> = {
  withheld: 'unavailable',
  unavailable: 'unavailable',
  invalid_request: 'invalid_request',
  out_of_range: 'out_of_range',
  not_found: 'not_found',
};

/**
 * The HTTP refusal an error stands for, or undefined for anything that is not a refusal (a bug).
 *
 * @example
 * ```ts
 * const r = refusalOf(e); // SvcError, LedgerError or HttpError as the HTTP refusal it maps to
 * if (r) return { status: r.status, body: r.toJSON() };
 * ```
 */
export function refusalOf(e: unknown): HttpError | undefined {
  if (e instanceof HttpError) return e;
  if (e instanceof SvcError) return new HttpError(e.code, e.message);
  if (e instanceof LedgerError)
    return new HttpError(LEDGER_STATUS[e.code], e.message, e.retryAfter !== undefined ? { retryAfter: e.retryAfter } : {});
  return undefined;
}

const NO_STORE = { 'cache-control': 'no-store' };

// WF-ERRORS

/**
 * The one place an error becomes an answer. A refusal answers its status and `{error, code}` (with
 * Retry-After, Allow and no-store where it has them); anything else is a fault of the server: it
 * is logged with the request's id and answered 500 `internal`, the id in the body, never a 4xx
 * that would blame the client.
 *
 * @example
 * ```ts
 * try { return await route.run(req); } catch (e) { return errorResponse(e, log, req.path); }
 * ```
 */
export function errorResponse(e: unknown, log: Logger, path: string, form: ErrorForm = 'json'): AppResponse {
  const r = refusalOf(e);
  if (r && r.code !== 'internal') {
    return {
      status: r.status,
      body:
        form === 'json' ? r.toJSON() : form === 'openai' ? openAiError(r.code, r.message) : problem(r.title ?? titleOf(r.code), r.message),
      headers: {
        ...(form === 'json' ? {} : PROBLEM_TYPE),
        ...(r.code === 'unavailable' ? NO_STORE : {}),
        ...(r.retryAfter !== undefined ? { 'retry-after': String(r.retryAfter) } : {}),
        ...r.headers,
      },
    };
  }
  const id = currentRequestId();
  log('internal_error', { path, error: e instanceof Error ? e.message : String(e) });
  return {
    status: 500,
    body:
      form === 'json'
        ? { error: 'internal error', code: 'internal', ...(id !== undefined ? { request_id: id } : {}) }
        : form === 'openai'
          ? openAiError('internal', `internal error${id !== undefined ? ` (request ${id})` : ''}`)
          : problem('Internal error', `internal error${id !== undefined ? ` (request ${id})` : ''}`),
    headers: { ...NO_STORE, ...(form === 'json' ? {} : PROBLEM_TYPE) },
  };
}

/** How a listener writes its refusals: `{error, code}`, SCRAPI's CBOR problems, or OpenAI's shape. */
export type ErrorForm = 'json' | 'problem+cbor' | 'openai';

/** The `type` OpenAI's clients read beside `code`, by the class of refusal. */
function openAiType(code: HttpErrorCode): string {
  if (code === 'unauthorized') return 'authentication_error';
  if (code === 'rate_limited') return 'rate_limit_error';
  if (code === 'bad_gateway' || code === 'gateway_timeout') return 'upstream_error';
  if (code === 'unavailable' || code === 'internal' || code === 'not_implemented') return 'server_error';
  return 'invalid_request_error';
}

/** A refusal as OpenAI's API writes one, which its SDKs read into their error classes (wire-format s.15). */
export function openAiError(code: HttpErrorCode, message: string) {
  return { error: { message, type: openAiType(code), code, param: null } };
}

const PROBLEM_TYPE = { 'content-type': 'application/concise-problem-details+cbor' };

/** RFC 9290 Concise Problem Details: title (-1) and detail (-2), as SCRAPI answers every error. */
function problem(title: string, detail: string): Uint8Array {
  return cborEncode(
    new Map([
      [-1, title],
      [-2, detail],
    ]),
  );
}

function titleOf(code: HttpErrorCode): string {
  const t = code.replaceAll('_', ' ');
  return code === 'invalid_request' ? 'Malformed request' : t[0]!.toUpperCase() + t.slice(1);
}
