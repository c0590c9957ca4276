// The framework-free request/response pair handlers speak. The node:http adapter maps to and from
// it, and tests call handlers with it directly, in-process, without a socket.
/**
 * A request as the app sees it, independent of node:http.
 *
 * @example
 * ```ts
 * const req: AppRequest = {
 *   method: 'POST',
 *   path: '/api/v1/verify',
 *   query: new URLSearchParams(),
 *   headers: { 'content-type': 'application/json' },
 *   ip: '203.0.113.7',
 *   body: async () => new TextEncoder().encode(text),
 * };
 * ```
 */
export interface AppRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: Record<string, string | string[] | undefined>;
  /** The client address after the trusted-proxy rule. */
  ip: string;
  /** The body, read up to the 2 MB limit; rejects with HttpError('too_large') past it. */
  body(): Promise<Uint8Array>;
  /**
   * The body as it arrives, unbounded, for a route that reads it as a stream and bounds it itself
   * (tlog-mirror's add-entries). A request is read by `body()` or by this, never both; an answer
   * sent before the stream ended closes the connection.
   */
  stream?(): AsyncIterable<Uint8Array>;
  /** Who the request authenticated as (a token's name, never the token), set by the private listener; logged with the request. */
  principal?: string;
}

/**
 * What the app answers: status, headers and a body of bytes.
 *
 * @example
 * ```ts
 * const res: AppResponse = await createApp(deps).handle(req);
 * ```
 */
export interface AppResponse {
  status: number;
  headers?: Record<string, string>;
  /** JSON-serialised unless it is a string or bytes (sent as is) or absent (no body). */
  body?: unknown;
  /**
   * A body sent as it is made (server-sent events), instead of `body`: chunks are written as they
   * come, with backpressure; `closed` aborts once the client is gone, so the maker stops its work.
   */
  stream?: (closed: AbortSignal) => AsyncIterable<string>;
}

/** A route's handler: the request and its path parameters by name (`{tile}` is `params.tile`). */
export type Handler = (req: AppRequest, params: Readonly<Record<string, string>>) => Promise<AppResponse>;

export const json = (status: number, body: unknown, headers: Record<string, string> = {}): AppResponse => ({ status, body, headers });
