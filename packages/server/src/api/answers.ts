// What more than one route group answers with: media types, task results, query integers.
import { HttpError } from '../http/errors.js';
import type { AppResponse } from '../http/types.js';
import type { TaskResult } from '../pool/tasks.js';

export const JSON_TYPE = 'application/json; charset=utf-8';
export const TEXT_TYPE = 'text/plain; charset=utf-8';

/** A text answer (checkpoints, vkeys, notes). */
export const textAnswer = (body: string, headers: Record<string, string> = {}): AppResponse => ({
  status: 200,
  body,
  headers: { 'content-type': TEXT_TYPE, ...headers },
});

/**
 * A pool task's answer: its JSON text as it came back, or its refusal thrown as the HTTP error it
 * is (an `internal` failure is the server's, answered 500 by the pipeline's one error boundary).
 */
export function settled(r: TaskResult): AppResponse {
  if (r.ok) return { status: 200, body: r.json, headers: { 'content-type': JSON_TYPE } };
  throw new HttpError(r.code, r.message, r.retryAfter !== undefined ? { retryAfter: r.retryAfter } : {});
}

/** A non-negative integer query parameter (at most 16 digits), or undefined when absent and optional. */
export function intParam(q: URLSearchParams, name: string, required: boolean): number | undefined {
  const v = q.get(name);
  if (v === null || v === '') {
    if (required) throw new HttpError('out_of_range', `query parameter ${name} is required`);
    return undefined;
  }
  if (!/^\d{1,16}$/.test(v)) throw new HttpError('out_of_range', `${name} must be a positive integer`);
  return Number(v);
}
