// The request a piece of work belongs to, carried through every await (AsyncLocalStorage): log
// lines and internal-error answers name it, so an operator can find a client's failure in the log.
import { AsyncLocalStorage } from 'node:async_hooks';

const requestScope = new AsyncLocalStorage<string>();

/** Runs `fn` (and everything it starts) as part of the request `id`: their log lines carry it. */
export function withRequestId<T>(id: string, fn: () => T): T {
  return requestScope.run(id, fn);
}

/** The id of the request the caller is serving, if any. */
export function currentRequestId(): string | undefined {
  return requestScope.getStore();
}

/** A client's X-Request-Id when it is a plain token, so it can be followed through a proxy; else a new one. */
export function requestId(given: string | string[] | undefined): string {
  return typeof given === 'string' && /^[A-Za-z0-9._:-]{1,64}$/.test(given) ? given : crypto.randomUUID();
}
